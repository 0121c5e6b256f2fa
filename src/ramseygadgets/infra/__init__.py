"""The infra layer's folder (it imports nothing itself)."""
