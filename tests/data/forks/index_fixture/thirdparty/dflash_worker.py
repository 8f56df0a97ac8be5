"""Not SGLang: a third-party worker that happens to share the names."""


class DFlashWorker:
    def forward_batch_generation(self, batch):
        return batch
