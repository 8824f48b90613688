# Type stubs of the extension module counterlab._native (python/src/lib.rs). The public,
# documented API is counterlab/__init__.py; these are its building blocks.
from pathlib import Path
from typing import List, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

KERNEL_VERSION: str
VERIFIER_VERSION: str
CRATE_VERSION: str

class Error(Exception):
    path: Optional[str]
    row: Optional[int]
    column: Optional[str]
    json_path: Optional[str]

class IoError(Error): ...
class PackError(Error): ...
class DataError(Error): ...
class ExperimentError(Error): ...
class UnknownPackError(Error): ...
class OverBudgetError(Error): ...
class UsageError(Error): ...

_Input = Union[bytes, Path]

def run(
    experiment: _Input,
    packs: Optional[Path] = None,
    threads: Optional[int] = None,
    max_fixture_bytes: Optional[int] = None,
    max_columns: Optional[int] = None,
    max_rows: Optional[int] = None,
) -> Tuple[str, List[str]]: ...
def verify(
    document: _Input,
    packs: Optional[Path] = None,
    permutations: Optional[int] = None,
    observe: bool = False,
    seed: Optional[int] = None,
    alpha: Optional[float] = None,
    max_payload_bytes: Optional[int] = None,
    max_work: Optional[int] = None,
    threads: Optional[int] = None,
    max_design_bytes: Optional[int] = None,
    max_fixture_bytes: Optional[int] = None,
    max_columns: Optional[int] = None,
    max_rows: Optional[int] = None,
) -> str: ...
def verify_revision(
    payloads: List[_Input],
    packs: Optional[Path] = None,
    permutations: Optional[int] = None,
    threads: Optional[int] = None,
    max_fixture_bytes: Optional[int] = None,
    max_columns: Optional[int] = None,
    max_rows: Optional[int] = None,
) -> str: ...
def metrics(
    labels: npt.NDArray[np.uint8],
    scores: npt.NDArray[np.float64],
    scores2: Optional[npt.NDArray[np.float64]],
    entities: Optional[List[str]],
    threshold: float,
    positive: str,
) -> str: ...
def audit(
    data: _Input,
    name: str,
    entity: str,
    label: str,
    positive: str,
    test: str,
    time: Optional[str] = None,
    threads: Optional[int] = None,
    out: Optional[Path] = None,
    seed: int = 1,
    margin: Optional[float] = None,
    time_kind: Optional[str] = None,
    more_entities: List[str] = ...,
    model: Optional[str] = None,
    missing_values: Optional[str] = None,
    max_fixture_bytes: Optional[int] = None,
    max_columns: Optional[int] = None,
    max_rows: Optional[int] = None,
    keep: List[str] = ...,
    drop: List[str] = ...,
    features: Optional[List[str]] = None,
) -> str: ...
def init(
    data: _Input,
    name: str,
    entity: str,
    label: str,
    positive: str,
    out: Path,
    time: Optional[str] = None,
    time_kind: Optional[str] = None,
    test: Optional[str] = None,
    id: Optional[str] = None,
    keep: List[str] = ...,
    drop: List[str] = ...,
    features: Optional[List[str]] = None,
    model: Optional[str] = None,
    missing_values: Optional[str] = None,
    max_fixture_bytes: Optional[int] = None,
    max_columns: Optional[int] = None,
    max_rows: Optional[int] = None,
) -> str: ...
def boundary(
    pack: str,
    packs: Optional[Path] = None,
    threads: Optional[int] = None,
    max_fixture_bytes: Optional[int] = None,
    max_columns: Optional[int] = None,
    max_rows: Optional[int] = None,
) -> str: ...
def transfer(
    pack: str,
    choice: str,
    packs: Optional[Path] = None,
    threads: Optional[int] = None,
    max_fixture_bytes: Optional[int] = None,
    max_columns: Optional[int] = None,
    max_rows: Optional[int] = None,
) -> str: ...
def select(
    prediction: _Input,
    candidates: List[Path],
    packs: Optional[Path] = None,
    max_fixture_bytes: Optional[int] = None,
    max_columns: Optional[int] = None,
    max_rows: Optional[int] = None,
) -> str: ...
def build_capsule(
    prediction: _Input,
    candidates: List[Path],
    revisions: List[_Input],
    boundary: bool,
    packs: Optional[Path] = None,
    threads: Optional[int] = None,
    max_fixture_bytes: Optional[int] = None,
    max_columns: Optional[int] = None,
    max_rows: Optional[int] = None,
) -> str: ...
