"""Who speaks each quotation: the CPU attributor and the LLM protocol."""
