"""Citation Studio app entry point."""

import streamlit as st

st.set_page_config(page_title="Citation Studio", layout="wide")
st.title("Citation Studio")
st.write("The citation contract is in place; the pipeline pages follow.")
