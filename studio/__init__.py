"""Support for the Streamlit app: services without Streamlit, and session-safe caching with it."""
