"""Streamlit app, thin over app/."""
