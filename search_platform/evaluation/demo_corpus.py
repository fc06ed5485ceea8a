"""The demo corpus: a fixed subset of the Python 3.11 HTML docs that Debian's `python3.11-doc` installs.

The pages are chosen to ingest in about two minutes on two CPU cores (about 1.4 million characters of main-body
text) while covering many kinds of developer question; datasets/golden/README.md says why each is in. A page's
document id everywhere is its path relative to the docs root, e.g. "library/json.html".
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from search_platform.domain.models import ContentType
from search_platform.text.parsing import parse_blocks

DEFAULT_DOCS_ROOT = Path("/usr/share/doc/python3.11/html")
DOCS_PACKAGE = "python3.11-doc"

DEMO_PAGES: tuple[str, ...] = (
    # data formats and storage
    "library/json.html",
    "library/csv.html",
    "library/tomllib.html",
    "library/sqlite3.html",
    # files, paths and archives
    "library/os.path.html",
    "library/pathlib.html",
    "library/glob.html",
    "library/fnmatch.html",
    "library/shutil.html",
    "library/tempfile.html",
    "library/zipfile.html",
    "library/gzip.html",
    # text
    "library/re.html",
    "library/textwrap.html",
    # dates and times
    "library/datetime.html",
    "library/zoneinfo.html",
    # data structures and functional tools
    "library/collections.html",
    "library/itertools.html",
    "library/functools.html",
    "library/heapq.html",
    "library/bisect.html",
    "library/copy.html",
    "library/contextlib.html",
    "library/enum.html",
    "library/dataclasses.html",
    "library/typing.html",
    # errors
    "library/exceptions.html",
    "library/errno.html",
    # applications: logging, command line, processes
    "library/logging.html",
    "library/argparse.html",
    "library/subprocess.html",
    # concurrency
    "library/threading.html",
    "library/concurrent.futures.html",
    "library/queue.html",
    "library/asyncio-task.html",
    "library/asyncio-runner.html",
    "library/asyncio-queue.html",
    "library/asyncio-subprocess.html",
    # networking
    "library/socket.html",
    "library/http.client.html",
    "library/urllib.request.html",
    # hashing, secrets and identifiers
    "library/hashlib.html",
    "library/hmac.html",
    "library/secrets.html",
    "library/base64.html",
    "library/uuid.html",
    # testing and runtime
    "library/unittest.html",
    "library/timeit.html",
    "library/atexit.html",
    # guides and the interpreter's command line
    "using/cmdline.html",
    "howto/logging.html",
    "howto/regex.html",
    "howto/sorting.html",
)


def _missing_docs_error(what: str, docs_root: Path) -> FileNotFoundError:
    """The error to raise when the docs are not installed, with the command that installs them."""
    return FileNotFoundError(
        f"{what} (docs root {docs_root}); install the Debian package {DOCS_PACKAGE}: apt-get install -y {DOCS_PACKAGE}"
    )


def build_demo_corpus(dest: Path, *, docs_root: Path = DEFAULT_DOCS_ROOT) -> list[Path]:
    """Copy the demo pages into dest under their relative paths; return the copied files, in DEMO_PAGES order."""
    if not docs_root.is_dir():
        raise _missing_docs_error("the Python 3.11 HTML documentation is not installed", docs_root)
    missing = [page for page in DEMO_PAGES if not (docs_root / page).is_file()]
    if missing:
        raise _missing_docs_error(f"{len(missing)} demo page(s) missing: {', '.join(missing)}", docs_root)
    copied = []
    for page in DEMO_PAGES:
        source, target = docs_root / page, dest / page
        if not (target.is_file() and target.read_bytes() == source.read_bytes()):
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
        copied.append(target)
    return copied


@dataclass(frozen=True, slots=True)
class PageText:
    """A docs page as ingestion sees it: its first heading and its main-content blocks, one per line."""

    title: str
    text: str


def read_page(path: Path) -> PageText:
    """Parse an HTML page once into its title and indexed text."""
    blocks = parse_blocks(path.read_text(encoding="utf-8"), ContentType.HTML)
    title = next((block.text for block in blocks if block.is_heading), "")
    return PageText(title=title, text="\n".join(block.text for block in blocks))
