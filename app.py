"""Citation Studio: the Iris citation pipeline and Artemis-like source chips, in one app."""

import streamlit as st

st.set_page_config(page_title="Citation Studio", page_icon="📎", layout="wide")

# The Ask page keeps what is open (course, unit, view, position, language, conversation) in one
# view state in session state (studio/view_state.py), so a visit to another page loses nothing.

pages = [
    st.Page("pages/ask.py", title="Ask", icon=":material/forum:", default=True),
    st.Page("pages/chip_preview.py", title="Chip preview", icon=":material/sell:"),
    st.Page("pages/language_qa.py", title="Language QA", icon=":material/translate:"),
    st.Page("pages/library.py", title="Library", icon=":material/library_books:"),
]
st.navigation(pages, position="top").run()
