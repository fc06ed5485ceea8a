"""Pure domain models and errors shared by every layer."""
