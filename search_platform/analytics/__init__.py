"""Search analytics: query logs, online experiments, feedback and arm reports."""
