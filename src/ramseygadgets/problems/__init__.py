"""The problems layer's folder (it imports nothing itself)."""
