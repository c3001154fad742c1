"""Citation Studio: the Iris citation pipeline and Artemis-like source chips, in one app."""

import streamlit as st

# The menu (top right) holds the theme switch (System, Light, Dark) and "About"; with no item of its own the
# minimal toolbar would hide it. The theme follows the browser's preference until the reader picks one.
ABOUT = ("**Citation Studio** puts source chips behind the sentences of an answer about lecture material: "
         "hover a chip for its summary, click it to open the slide or play the video where it says so.")
st.set_page_config(page_title="Citation Studio", page_icon="📎", layout="wide", menu_items={"About": ABOUT})

# The Ask page keeps what is open (course, unit, view, position, language, conversation) in one
# view state in session state (studio/view_state.py), so a visit to another page loses nothing.

# The store (storage.database or $CITATION_STUDIO_DB: a path, sqlite:///… or postgresql://…) opens before any
# page: a value that is neither a path nor a supported URL, a file that is no database or a server that cannot
# be reached is said in one line instead of a page that fails halfway (visitors read what is wrong, the server
# log also where, credentials masked).
from citation_core.errors import CitationStudioError, StoreProblem  # noqa: E402
from studio.cached import store  # noqa: E402
from studio.store_status import stop_unavailable  # noqa: E402
from studio.text import md_escape  # noqa: E402

try:
    store()
except StoreProblem as exc:
    stop_unavailable(exc)
except CitationStudioError as exc:  # application.yml itself
    st.error(f"The store cannot be opened: {md_escape(exc)}", icon=":material/error:")
    st.stop()

# The multilingual encoder (about 1 s of CPU) loads once per process in the background, while the first page
# draws: the first question does not wait for it.
from citation_core.text.encoder import preload  # noqa: E402


@st.cache_resource(show_spinner=False)
def _encoder_loading() -> object:
    return preload()


_encoder_loading()

pages = [
    st.Page("pages/ask.py", title="Ask", icon=":material/forum:", default=True),
    st.Page("pages/chip_preview.py", title="Chip preview", icon=":material/sell:"),
    st.Page("pages/language_qa.py", title="Language QA", icon=":material/translate:"),
    st.Page("pages/library.py", title="Library", icon=":material/library_books:"),
]
st.navigation(pages, position="top").run()
