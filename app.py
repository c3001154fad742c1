"""Citation Studio: the Iris citation pipeline and Artemis-like source chips, in one app."""

import streamlit as st

st.set_page_config(page_title="Citation Studio", page_icon="📎", layout="wide")

# Widget state is dropped when a page without that widget runs; keeping these few choices as plain
# session state lets a user visit the Library and come back to the same course, unit and language.
for key in ("course_label", "lang", "variant", "mode"):
    if key in st.session_state:
        st.session_state[key] = st.session_state[key]

pages = [
    st.Page("pages/ask.py", title="Ask", icon=":material/forum:", default=True),
    st.Page("pages/chip_preview.py", title="Chip preview", icon=":material/sell:"),
    st.Page("pages/language_qa.py", title="Language QA", icon=":material/translate:"),
    st.Page("pages/library.py", title="Library", icon=":material/library_books:"),
]
st.navigation(pages, position="top").run()
