from unittest import mock

from serving import worker

# Patched when this module is imported: both reaches must name a class the worker module has.
with mock.patch.object(worker.dfw.DFlashWorker, "forward_batch_generation"), \
        mock.patch("serving.worker.dfw.DFlashWorker"):
    PATCHED = True


def test_worker_class_is_the_module_alias_class():
    assert worker.worker_class() is worker.dfw.DFlashWorker
