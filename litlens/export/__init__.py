"""The field's interchange formats out of plain LitLens data: TEI P5 and PDNC's CSVs.

Domain code: every function takes the stored text, structure, quotations and characters as
plain data and returns the document (bytes or strings); writing files is the services' job.
"""
