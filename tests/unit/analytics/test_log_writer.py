import asyncio

from elasticsearch import ConnectionError as EsConnectionError

from search_platform.analytics.log_writer import SearchLogWriter


class RecordingWriter(SearchLogWriter):
    """The real batching loop with flush replaced by a recorder (the ES write is covered by integration tests)."""

    def __init__(self, **options):
        super().__init__(es=None, alias="logs", **options)
        self.batches: list[list[dict]] = []

    async def flush(self, batch):
        if batch:
            self.batches.append(batch)


class _DownIndices:
    async def exists_alias(self, **_):
        raise EsConnectionError("connection refused")


class _DownElasticsearch:
    indices = _DownIndices()


async def test_a_full_queue_drops_and_counts_instead_of_blocking():
    writer = RecordingWriter(queue_size=2)
    assert [writer.enqueue({"n": i}) for i in range(5)] == [True, True, False, False, False]
    assert (writer.stats.dropped, writer.stats.queued) == (3, 2)


async def test_batches_are_cut_by_size_then_by_interval():
    writer = RecordingWriter(queue_size=100, batch_size=3, flush_interval_s=0.2)
    for i in range(7):
        writer.enqueue({"n": i})
    await writer.start()
    for _ in range(50):
        if sum(map(len, writer.batches)) == 7:
            break
        await asyncio.sleep(0.05)
    await writer.stop(timeout_s=1)
    assert [len(batch) for batch in writer.batches] == [3, 3, 1]
    assert [event["n"] for batch in writer.batches for event in batch] == list(range(7))


async def test_stop_flushes_what_is_queued():
    writer = RecordingWriter(queue_size=100, batch_size=50, flush_interval_s=60)
    await writer.start()
    for i in range(4):
        writer.enqueue({"n": i})
    await asyncio.sleep(0.05)  # the loop holds the events, waiting for more until the interval
    await writer.stop(timeout_s=1)
    assert [event["n"] for batch in writer.batches for event in batch] == [0, 1, 2, 3]
    assert writer.stats.queued == 0


async def test_elasticsearch_failures_are_counted_not_raised():
    writer = SearchLogWriter(_DownElasticsearch(), alias="logs")
    await writer.flush([{"n": 1}, {"n": 2}])
    assert (writer.stats.failed, writer.stats.written) == (2, 0)
