"""Fixtures for the cluster tests: PostgreSQL, a counting origin and three instances, on loopback."""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from support import Instance, Origin, Postgres, Viewer, sample_photos

PHOTO_COUNT = 12


@pytest.fixture(scope="session")
def photos():
    with tempfile.TemporaryDirectory(prefix="classic-photos-cluster-samples-") as folder:
        yield sample_photos(Path(folder), PHOTO_COUNT)


@pytest.fixture
def workdir():
    with tempfile.TemporaryDirectory(prefix="classic-photos-cluster-") as folder:
        yield Path(folder)


@pytest.fixture
def postgres(workdir):
    server = Postgres(workdir)
    yield server
    server.stop()


@pytest.fixture
def origin(photos):
    server = Origin(photos)
    yield server
    server.close()


@pytest.fixture
def cluster(workdir, postgres, origin):
    """Three instances, a, b and c, on one database and one origin."""
    instances = []
    try:
        for name in "abc":
            instances.append(Instance(workdir, name, postgres.url, origin.source))
        yield instances
    finally:
        for instance in instances:
            instance.stop()


@pytest.fixture
def viewers():
    made: list[Viewer] = []

    def make(instance: Instance) -> Viewer:
        viewer = Viewer(instance)
        made.append(viewer)
        return viewer

    yield make
    for viewer in made:
        viewer.close()
