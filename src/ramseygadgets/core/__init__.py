"""The core layer's folder (it imports nothing itself)."""
