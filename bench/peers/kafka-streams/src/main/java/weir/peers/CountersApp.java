package weir.peers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;

/**
 * What one Weir counter configuration computes, in Kafka Streams: per entity (the record key,
 * `org:entity`) a 1-hour count, a 24-hour sum and the last seen time of its `txn` events, each
 * event id counted once per organization. The windows are per-second buckets in RocksDB, read as
 * Weir reads them: at `now` a window covers (now - window, now], the buckets from
 * floor((now - window) / 1 s) + 1 on. Exactly once v2, no record cache, so every update goes to its
 * store's changelog as it happens.
 *
 * The event ids are checked one of two ways (the last argument):
 * - `partition` (the default): in the counting task, a key-value store keyed `org:event_id` kept for
 *   ever; an id is counted once per partition, so an event re-sent with another entity key (another
 *   partition) counts twice, and the store grows without bound.
 * - `window`: as Weir does, once per organization across partitions, forgotten after a day. The
 *   events are re-keyed by `org:event_id` through a repartition topic to a task that checks the id in
 *   a persistent window store of one day's retention (Kafka Streams' deduplication example), then
 *   re-keyed by entity through a second repartition topic to the counting task.
 *
 * Args: bootstrap topic application-id state-dir threads [partition|window]. Prints RUNNING once
 * it runs; then reads commands on stdin: `query <key> ...` prints one JSON line
 * {"now":ms,"values":{"<key>":[count_1h,sum_24h,last_seen_ms|null]}}; `counted` prints
 * {"counted":n}, the events the counting tasks applied; `stop` (or end of input) closes it.
 */
public final class CountersApp {
  static final String IDS = "event-ids";
  static final String COUNT_1H = "txn-count-1h";
  static final String SUM_24H = "txn-amount-24h";
  static final String LAST_SEEN = "txn-last-seen";
  static final long HOUR_MS = 3_600_000L;
  static final long DAY_MS = 24 * HOUR_MS;
  /** How long an id is remembered in `window` mode: a day, Weir's default window (its once ids are kept 25 hours). */
  static final Duration ID_WINDOW = Duration.ofMillis(DAY_MS);
  /** In `window` mode, the entity key the event came with, while it is keyed by its id. */
  static final String ENTITY_HEADER = "entity";
  /** Events applied by the counting tasks: the drain of `window` mode ends when it reaches the backlog. */
  static final AtomicLong COUNTED = new AtomicLong();

  /** Lowest second inside a window at `now`, as Weir's floorBucket. */
  static long floorSecond(long now, long windowMs) {
    return Math.floorDiv(now - windowMs, 1000L) + 1;
  }

  /** Entity bytes, a 0 byte (never in an id), the second big-endian: an entity's buckets sort together, by time. */
  static Bytes bucketKey(String entity, long second) {
    byte[] e = entity.getBytes(StandardCharsets.UTF_8);
    return Bytes.wrap(ByteBuffer.allocate(e.length + 9).put(e).put((byte) 0).putLong(second).array());
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  static JsonNode parse(byte[] value) {
    try {
      return JSON.readTree(value);
    } catch (IOException err) {
      throw new UncheckedIOException(err);
    }
  }

  /** `window` mode, first step: a `txn` event keyed by `org:event_id`, its entity key in a header. */
  static final class KeyById implements Processor<String, byte[], String, byte[]> {
    private ProcessorContext<String, byte[]> context;

    @Override
    public void init(ProcessorContext<String, byte[]> context) {
      this.context = context;
    }

    @Override
    public void process(Record<String, byte[]> record) {
      JsonNode e = parse(record.value());
      if (!"txn".equals(e.path("event_type").asText())) return;
      String id = e.path("org_id").asText() + ":" + e.path("event_id").asText();
      context.forward(record.withKey(id).withHeaders(new RecordHeaders().add(ENTITY_HEADER, record.key().getBytes(StandardCharsets.UTF_8))));
    }
  }

  /**
   * `window` mode, in the task of the event's id: drops an id seen within a day of this one (record
   * time), as Kafka Streams' deduplication example does; forwards the others keyed by entity again.
   */
  static final class Deduplicate implements Processor<String, byte[], String, byte[]> {
    private ProcessorContext<String, byte[]> context;
    private WindowStore<String, Long> ids;

    @Override
    public void init(ProcessorContext<String, byte[]> context) {
      this.context = context;
      ids = context.getStateStore(IDS);
    }

    @Override
    public void process(Record<String, byte[]> record) {
      long at = record.timestamp();
      try (WindowStoreIterator<Long> seen = ids.fetch(record.key(), at - ID_WINDOW.toMillis(), at + ID_WINDOW.toMillis())) {
        if (seen.hasNext()) return;
      }
      ids.put(record.key(), at, at);
      String entity = new String(record.headers().lastHeader(ENTITY_HEADER).value(), StandardCharsets.UTF_8);
      context.forward(record.withKey(entity).withHeaders(new RecordHeaders()));
    }
  }

  /** The counters of one entity; checks the event id itself in `partition` mode only. */
  static final class CounterProcessor implements Processor<String, byte[], Void, Void> {
    private final boolean checksIds;
    private KeyValueStore<String, Long> ids;
    private KeyValueStore<Bytes, Long> counts;
    private KeyValueStore<Bytes, Double> sums;
    private KeyValueStore<String, Long> lastSeen;

    CounterProcessor(boolean checksIds) {
      this.checksIds = checksIds;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
      if (checksIds) ids = context.getStateStore(IDS);
      counts = context.getStateStore(COUNT_1H);
      sums = context.getStateStore(SUM_24H);
      lastSeen = context.getStateStore(LAST_SEEN);
    }

    @Override
    public void process(Record<String, byte[]> record) {
      JsonNode e = parse(record.value());
      if (!"txn".equals(e.path("event_type").asText())) return;
      long now = System.currentTimeMillis();
      if (checksIds) {
        String id = e.path("org_id").asText() + ":" + e.path("event_id").asText();
        if (ids.get(id) != null) return;
        ids.put(id, now);
      }
      String entity = record.key();
      long at = Instant.parse(e.path("occurred_at").asText()).toEpochMilli();
      long second = Math.floorDiv(at, 1000L);
      // As Weir's planEvent: an event older than a window changes nothing there.
      if (second >= floorSecond(now, HOUR_MS)) {
        Bytes k = bucketKey(entity, second);
        Long c = counts.get(k);
        counts.put(k, c == null ? 1L : c + 1);
      }
      if (second >= floorSecond(now, DAY_MS)) {
        Bytes k = bucketKey(entity, second);
        Double s = sums.get(k);
        double v = e.path("value").asDouble(0);
        sums.put(k, s == null ? v : s + v);
      }
      Long last = lastSeen.get(entity);
      if (last == null || at > last) lastSeen.put(entity, at);
      COUNTED.incrementAndGet();
    }
  }

  static double rangeSum(ReadOnlyKeyValueStore<Bytes, ? extends Number> store, String entity, long fromSecond) {
    double total = 0;
    try (KeyValueIterator<Bytes, ? extends Number> it = store.range(bucketKey(entity, fromSecond), bucketKey(entity, Long.MAX_VALUE))) {
      while (it.hasNext()) {
        KeyValue<Bytes, ? extends Number> kv = it.next();
        total += kv.value.doubleValue();
      }
    }
    return total;
  }

  static String query(KafkaStreams streams, String[] keys) {
    ReadOnlyKeyValueStore<Bytes, Long> counts = streams.store(StoreQueryParameters.fromNameAndType(COUNT_1H, QueryableStoreTypes.<Bytes, Long>keyValueStore()));
    ReadOnlyKeyValueStore<Bytes, Double> sums = streams.store(StoreQueryParameters.fromNameAndType(SUM_24H, QueryableStoreTypes.<Bytes, Double>keyValueStore()));
    ReadOnlyKeyValueStore<String, Long> lastSeen = streams.store(StoreQueryParameters.fromNameAndType(LAST_SEEN, QueryableStoreTypes.<String, Long>keyValueStore()));
    long now = System.currentTimeMillis();
    StringBuilder out = new StringBuilder("{\"now\":").append(now).append(",\"values\":{");
    for (int i = 1; i < keys.length; i++) {
      String key = keys[i];
      Long last = lastSeen.get(key);
      if (i > 1) out.append(',');
      out.append('"').append(key).append("\":[")
          .append((long) rangeSum(counts, key, floorSecond(now, HOUR_MS))).append(',')
          .append(rangeSum(sums, key, floorSecond(now, DAY_MS))).append(',')
          .append(last == null ? "null" : last.toString()).append(']');
    }
    return out.append("}}").toString();
  }

  static <K, V> StoreBuilder<KeyValueStore<K, V>> keyValueStore(String name, Serde<K> keys, Serde<V> values) {
    return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), keys, values);
  }

  /** `windowIds`: the `window` mode of the class comment, else `partition`. */
  static Topology topology(String topic, boolean windowIds) {
    StreamsBuilder builder = new StreamsBuilder();
    builder.addStateStore(keyValueStore(COUNT_1H, Serdes.Bytes(), Serdes.Long()));
    builder.addStateStore(keyValueStore(SUM_24H, Serdes.Bytes(), Serdes.Double()));
    builder.addStateStore(keyValueStore(LAST_SEEN, Serdes.String(), Serdes.Long()));
    KStream<String, byte[]> events = builder.stream(topic, Consumed.with(Serdes.String(), Serdes.ByteArray()));
    if (!windowIds) {
      builder.addStateStore(keyValueStore(IDS, Serdes.String(), Serdes.Long()));
      events.process(() -> new CounterProcessor(true), IDS, COUNT_1H, SUM_24H, LAST_SEEN);
      return builder.build();
    }
    builder.addStateStore(Stores.windowStoreBuilder(Stores.persistentWindowStore(IDS, ID_WINDOW, ID_WINDOW, false), Serdes.String(), Serdes.Long()));
    events.process(KeyById::new)
        .repartition(Repartitioned.with(Serdes.String(), Serdes.ByteArray()).withName("by-event-id"))
        .process(Deduplicate::new, IDS)
        .repartition(Repartitioned.with(Serdes.String(), Serdes.ByteArray()).withName("by-entity"))
        .process(() -> new CounterProcessor(false), COUNT_1H, SUM_24H, LAST_SEEN);
    return builder.build();
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 5 || args.length > 6 || (args.length == 6 && !args[5].matches("partition|window"))) {
      throw new IllegalArgumentException("args: bootstrap topic application-id state-dir threads [partition|window]");
    }
    Properties p = new Properties();
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, args[2]);
    p.put(StreamsConfig.STATE_DIR_CONFIG, args[3]);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, Integer.parseInt(args[4]));
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");

    KafkaStreams streams = new KafkaStreams(topology(args[1], args.length == 6 && args[5].equals("window")), p);
    streams.setStateListener((now, before) -> {
      if (now == KafkaStreams.State.RUNNING) System.out.println("RUNNING");
      if (now == KafkaStreams.State.ERROR) System.out.println("ERROR");
    });
    streams.setUncaughtExceptionHandler(err -> {
      err.printStackTrace();
      return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    });
    streams.start();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      String[] words = line.trim().split("\\s+");
      if (words[0].equals("stop")) break;
      if (words[0].equals("query")) System.out.println(query(streams, words));
      if (words[0].equals("counted")) System.out.println("{\"counted\":" + COUNTED.get() + "}");
    }
    streams.close(Duration.ofSeconds(30));
  }
}
