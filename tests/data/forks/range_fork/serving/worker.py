from sglang.srt.speculative import dflash_worker as dfw


def worker_class():
    return dfw.DFlashWorker
