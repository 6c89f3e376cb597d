"""bayesnoise."""
