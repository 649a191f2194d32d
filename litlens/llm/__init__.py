"""Local and remote LLM backends behind one small interface."""
