package io.github.verbs4j.fabric;

import io.github.verbs4j.fabric.coord.KvsPlacement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Every configuration key the fabric accepts, each a constant next to its default and one line of
 * documentation, and a validated, immutable set of values.
 *
 * <p>Keys come as plain strings (the verbs-api module owns the user-facing configuration and passes
 * the {@code verbs.*} settings on). Validation happens once, in {@link #from(Map, Map)}: a key under
 * {@code verbs.fabric.}, {@code verbs.link.} or {@code verbs.fault.} that is not listed here, or a bad
 * value of a listed key, throws {@link IllegalArgumentException} naming the key and value. Other
 * {@code verbs.*} keys (for example {@code verbs.provider}) are ignored: they belong to other
 * modules.
 *
 * <pre>{@code
 * FabricOptions opts = FabricOptions.from(Map.of("verbs.fabric", "netty",
 *     "verbs.coordinator", "embedded:127.0.0.1:7000", "verbs.size", "4"), System.getenv());
 * }</pre>
 *
 * <p>Rank and size: {@code verbs.rank}/{@code verbs.size} if set (not -1), else {@code
 * SLURM_PROCID}/{@code SLURM_NTASKS}, else {@code OMPI_COMM_WORLD_RANK}/{@code
 * OMPI_COMM_WORLD_SIZE} from the environment map, else 0 and 1.
 */
public final class FabricOptions {

  /**
   * One configuration key.
   *
   * @param name the key
   * @param defaultValue the default, as text
   * @param description one line of documentation
   * @param core true if the key is one of verbs-api's core keys that the fabric also reads
   */
  public record Key(String name, String defaultValue, String description, boolean core) {}

  private static final List<Key> KEYS = new ArrayList<>();

  private static Key core(String name, String def, String doc) {
    Key k = new Key(name, def, doc, true);
    KEYS.add(k);
    return k;
  }

  private static Key key(String name, String def, String doc) {
    Key k = new Key(name, def, doc, false);
    KEYS.add(k);
    return k;
  }

  /** Transport: {@code local} (in-JVM) or {@code netty} (between processes and hosts). */
  public static final Key FABRIC = core("verbs.fabric", "local", "fabric transport: local (in-JVM) or netty (TCP/Unix sockets between processes)");
  /** Where the coordinator is. */
  public static final Key COORDINATOR = core("verbs.coordinator", "",
      "coordinator: host:port (connect), embedded:[host:]port (rank 0 runs it, all connect), empty = embedded on an ephemeral port (size 1 only)");
  /** This process's rank. */
  public static final Key RANK = core("verbs.rank", "-1", "rank, 0-based; -1 = SLURM_PROCID, OMPI_COMM_WORLD_RANK, else 0");
  /** The number of ranks. */
  public static final Key SIZE = core("verbs.size", "-1", "number of ranks; -1 = SLURM_NTASKS, OMPI_COMM_WORLD_SIZE, else 1");
  /** Wall or modelled clocks. */
  public static final Key TIME = core("verbs.time", "wall", "node clocks: wall (System.nanoTime) or modelled (advanced by frames and charges)");
  /** How the fabric's polling threads wait (verbs-api's key; the shared-memory receiver uses it). */
  public static final Key IDLE_STRATEGY = core("verbs.idle-strategy", "backoff",
      "how a polling thread waits when idle: backoff (200 spins, 50 yields, then parks from 10 us doubling to 1 ms), spin, yield or sleep (parks 1 ms)");
  /** The topology. */
  public static final Key TOPOLOGY = key("verbs.topology", "switch",
      "switch (one IB switch) or peach2[:rings=1|2,nodesPerRing=2..16,sliceBits=N] (PEACH2 E/W rings joined by S links)");

  /** Where the job's key-value pairs live. */
  public static final Key KVS = key("verbs.fabric.kvs", "root",
      "where the job's key-value pairs live: root (the coordinator holds them all) or hashed (the member of rank murmur3_32(key) mod size holds each; the coordinator relays puts and gets; every rank must say the same)");
  /** Name of the shared in-JVM fabric that Fabric.open joins. */
  public static final Key NAME = key("verbs.fabric.name", "default", "local: name of the in-JVM fabric Fabric.open joins (nodes of one name see each other)");
  /** Local delivery mode. */
  public static final Key MODE = key("verbs.fabric.mode", "threaded",
      "threaded, or deterministic: events in modelled-time order (local: one thread runs them by runUntilIdle; netty: the job's processes run them in steps, ModelledSteps)");
  /** Local inbound queue capacity. */
  public static final Key QUEUE_FRAMES = key("verbs.fabric.queue-frames", "65536", "local: frames a node's inbound queue holds; unwritable at 3/4, drops when full");
  /** Netty socket family. */
  public static final Key TRANSPORT = key("verbs.fabric.transport", "auto", "netty: auto (Unix domain sockets to peers on this host when epoll is available, else TCP), tcp, or uds");
  /** Netty I/O implementation. */
  public static final Key IO = key("verbs.fabric.io", "auto", "netty: auto (epoll if available), epoll, or nio");
  /** Who runs a netty node's I/O. */
  public static final Key PROGRESS = key("verbs.fabric.progress", "thread",
      "netty: thread (the node's event-loop thread runs all I/O) or caller (a thread that calls progress() runs the I/O itself; a background thread takes over when no caller has for verbs.fabric.progress-lease-us)");
  /** How long a caller keeps the I/O. */
  public static final Key PROGRESS_LEASE_US = key("verbs.fabric.progress-lease-us", "2000",
      "netty, verbs.fabric.progress=caller: how long after a caller's last progress() the background thread stays out, us");
  /** Netty listen address. */
  public static final Key HOST = key("verbs.fabric.host", "127.0.0.1", "netty: address the data listener binds and advertises");
  /** Netty listen port. */
  public static final Key PORT = key("verbs.fabric.port", "0", "netty: TCP port of the data listener; 0 = ephemeral");
  /** Directory for Unix domain sockets. */
  public static final Key UDS_DIR = key("verbs.fabric.uds-dir", "", "netty: parent of the private directory verbs4j-<user> (mode 0700) that holds the Unix domain socket files; empty = java.io.tmpdir");
  /** Shared-memory rings to peers on this host. */
  public static final Key SHM = key("verbs.fabric.shm", "off",
      "netty: frames to peers on this host through shared-memory rings (/dev/shm): auto (peers on this host use them, others sockets), off, or required (open fails unless every peer is on this host)");
  /** Mutual TLS on TCP connections. */
  public static final Key TLS = key("verbs.fabric.tls", "off",
      "netty: on = mutual TLS 1.3 on every TCP connection (data and coordinator), keyed by the job secret, for ranks on different hosts; off. Unix sockets and shared-memory rings stay on this host and are not wrapped");
  /** Heartbeat interval. */
  public static final Key HEARTBEAT_MS = key("verbs.fabric.heartbeat-ms", "200", "netty: heartbeat interval to the coordinator, ms");
  /** Peer timeout. */
  public static final Key PEER_TIMEOUT_MS = key("verbs.fabric.peer-timeout-ms", "3000", "netty: a node silent this long is declared down, ms");
  /** Join timeout. */
  public static final Key JOIN_TIMEOUT_MS = key("verbs.fabric.join-timeout-ms", "60000", "netty: how long open waits for the coordinator and all ranks, ms");
  /** Write high-water mark. */
  public static final Key HIGH_WATER = key("verbs.fabric.high-water-bytes", "4194304", "netty: pending bytes per peer above which isWritable is false");
  /** Socket buffers of Unix domain socket connections. */
  public static final Key UDS_SOCKET_BUFFER = key("verbs.fabric.uds-socket-buffer-bytes", "4194304",
      "netty: SO_SNDBUF and SO_RCVBUF of Unix domain socket connections, bytes (the kernel caps them at net.core.wmem_max and rmem_max); 0 = the kernel's default. TCP keeps the kernel's autotuning");
  /**
   * Netty's allocator JFR events, applied by {@link Fabric#open}: Netty 4.2 registers them on the
   * first allocation of a thread, which stalled a fresh JVM for ~250 ms — long enough for a peer's
   * first packets to exhaust a short retry budget.
   */
  public static final Key NETTY_JFR = key("verbs.fabric.netty-jfr", "off",
      "Netty 4.2's buffer-allocator JFR events: off (Fabric.open sets io.netty.jfr.enabled=false unless the JVM already has that property; registering them stalls a fresh JVM ~250 ms) or netty (leave them to Netty, on by default)");
  /** Hard limit on pending bytes. */
  public static final Key MAX_PENDING = key("verbs.fabric.max-pending-bytes", "16777216", "netty: pending bytes per peer beyond which frames are dropped (backpressure)");

  /** Link latency. */
  public static final Key LINK_LATENCY_NS = key("verbs.link.latency-ns", "200", "modelled latency of one link hop, ns");
  /** Link bandwidth. */
  public static final Key LINK_BANDWIDTH = key("verbs.link.bandwidth-mb-s", "12500", "modelled link bandwidth, MB/s (10^6 bytes per second)");
  /** Link MTU. */
  public static final Key LINK_MTU = key("verbs.link.mtu", "1048576", "largest frame payload in bytes; larger frames are dropped (mtu)");
  /** Per-hop forwarding cost. */
  public static final Key LINK_FORWARD_NS = key("verbs.link.forward-ns", "100", "modelled forwarding cost at each intermediate switch or PEACH2 board, ns");

  /** Fault seed. */
  public static final Key FAULT_SEED = key("verbs.fault.seed", "1", "seed of the fault injector; same seed and sends give the same faults");
  /** Drop rate. */
  public static final Key FAULT_DROP = key("verbs.fault.drop", "0", "probability that a frame is dropped, every node pair");
  /** Duplicate rate. */
  public static final Key FAULT_DUPLICATE = key("verbs.fault.duplicate", "0", "probability that a frame is delivered twice");
  /** Reorder rate. */
  public static final Key FAULT_REORDER = key("verbs.fault.reorder", "0", "probability that a frame is held back behind the next frame of its pair");
  /** Corrupt rate. */
  public static final Key FAULT_CORRUPT = key("verbs.fault.corrupt", "0", "probability that one payload bit is flipped (the provider's CRC must catch it)");
  /** Delay rate. */
  public static final Key FAULT_DELAY = key("verbs.fault.delay", "0", "probability that a frame is delayed by verbs.fault.delay-ns");
  /** Extra delay. */
  public static final Key FAULT_DELAY_NS = key("verbs.fault.delay-ns", "10000", "extra delay of a delayed frame, ns (modelled; also wall time when verbs.time=wall)");
  /** Reorder window. */
  public static final Key FAULT_REORDER_NS = key("verbs.fault.reorder-ns", "50000", "longest a reordered frame waits for a later frame to overtake it, ns");
  /** Fault script. */
  public static final Key FAULT_SCRIPT = key("verbs.fault.script", "",
      "explicit faults: src-dst:action@frame[,frame...] joined by ';' (action: drop, dup, reorder, corrupt, delay, down, up; src/dst may be *)");

  private static final List<Key> ALL = Collections.unmodifiableList(new ArrayList<>(KEYS));
  private static final Set<String> OWN_PREFIXES = Set.of("verbs.fabric.", "verbs.link.", "verbs.fault.");

  private final Map<String, String> values;
  private final int rank;
  private final int size;

  private FabricOptions(Map<String, String> values, int rank, int size) {
    this.values = values;
    this.rank = rank;
    this.size = size;
  }

  /** @return every key the fabric reads, in documentation order */
  public static List<Key> keys() {
    return ALL;
  }

  /** @return the keys the fabric owns (not verbs-api core keys) */
  public static List<Key> ownKeys() {
    return ALL.stream().filter(k -> !k.core()).toList();
  }

  /** @return all defaults, rank 0 of 1 */
  public static FabricOptions defaults() {
    return from(Map.of(), Map.of());
  }

  /**
   * Validates settings, taking rank and size from the real environment if not set.
   *
   * @param settings {@code verbs.*} settings
   * @return the options
   * @throws IllegalArgumentException naming the key and value if a setting is unknown or invalid
   */
  public static FabricOptions from(Map<String, String> settings) {
    return from(settings, System.getenv());
  }

  /**
   * Validates settings.
   *
   * @param settings {@code verbs.*} settings (other keys are ignored)
   * @param env environment variables consulted for rank and size (Slurm, Open MPI)
   * @return the options
   * @throws IllegalArgumentException naming the key and value if a setting is unknown or invalid
   */
  public static FabricOptions from(Map<String, String> settings, Map<String, String> env) {
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(env, "env");
    Map<String, String> v = new LinkedHashMap<>();
    for (Key k : ALL) {
      v.put(k.name(), k.defaultValue());
    }
    for (Map.Entry<String, String> e : settings.entrySet()) {
      String name = e.getKey();
      boolean known = v.containsKey(name);
      if (!known) {
        for (String p : OWN_PREFIXES) {
          if (name.startsWith(p)) {
            throw new IllegalArgumentException("unknown fabric configuration key " + name + "=" + e.getValue()
                + " (known: " + ALL.stream().map(Key::name).filter(n -> n.startsWith(p)).toList() + ")");
          }
        }
        continue;
      }
      v.put(name, Objects.requireNonNull(e.getValue(), name).trim());
    }
    validate(v);
    int rank = (int) longValue(v, RANK);
    int size = (int) longValue(v, SIZE);
    if (rank < 0) {
      rank = envInt(env, "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", 0);
    }
    if (size < 0) {
      size = envInt(env, "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE", 1);
    }
    if (size < 1 || size > FrameHeader.MAX_NODE_ID) {
      throw new IllegalArgumentException("verbs.size=" + size + " must be in [1, " + FrameHeader.MAX_NODE_ID + "]");
    }
    if (rank >= size) {
      throw new IllegalArgumentException("verbs.rank=" + rank + " must be below verbs.size=" + size);
    }
    return new FabricOptions(Collections.unmodifiableMap(v), rank, size);
  }

  private static int envInt(Map<String, String> env, String slurm, String ompi, int def) {
    String s = env.get(slurm);
    String name = slurm;
    if (s == null || s.isBlank()) {
      s = env.get(ompi);
      name = ompi;
    }
    if (s == null || s.isBlank()) {
      return def;
    }
    try {
      return Integer.parseInt(s.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("environment " + name + "=" + s + " is not an integer", e);
    }
  }

  private static void validate(Map<String, String> v) {
    choice(v, FABRIC, "local", "netty");
    choice(v, TIME, "wall", "modelled");
    choice(v, MODE, "threaded", "deterministic");
    choice(v, PROGRESS, "thread", "caller");
    choice(v, TRANSPORT, "auto", "tcp", "uds");
    choice(v, IO, "auto", "epoll", "nio");
    choice(v, SHM, "auto", "off", "required");
    choice(v, IDLE_STRATEGY, "backoff", "spin", "yield", "sleep");
    choice(v, NETTY_JFR, "off", "netty");
    choice(v, TLS, "off", "on");
    choice(v, KVS, "root", "hashed");
    range(v, RANK, -1, FrameHeader.MAX_NODE_ID - 1);
    range(v, SIZE, -1, FrameHeader.MAX_NODE_ID);
    range(v, QUEUE_FRAMES, 16, 1 << 24);
    range(v, PORT, 0, 65535);
    range(v, PROGRESS_LEASE_US, 1, 3_600_000_000L);
    range(v, HEARTBEAT_MS, 1, 3_600_000);
    range(v, PEER_TIMEOUT_MS, 1, 3_600_000);
    range(v, JOIN_TIMEOUT_MS, 1, 86_400_000);
    range(v, HIGH_WATER, 1024, Integer.MAX_VALUE);
    range(v, UDS_SOCKET_BUFFER, 0, Integer.MAX_VALUE);
    range(v, MAX_PENDING, 1024, Long.MAX_VALUE);
    if (longValue(v, MAX_PENDING) < longValue(v, HIGH_WATER)) {
      throw new IllegalArgumentException(MAX_PENDING.name() + "=" + v.get(MAX_PENDING.name()) + " must be >= "
          + HIGH_WATER.name() + "=" + v.get(HIGH_WATER.name()));
    }
    range(v, LINK_LATENCY_NS, 0, Long.MAX_VALUE / 4);
    range(v, LINK_BANDWIDTH, 1, Long.MAX_VALUE / 4);
    range(v, LINK_MTU, 1, Integer.MAX_VALUE - FrameHeader.LENGTH - 1);
    range(v, LINK_FORWARD_NS, 0, Long.MAX_VALUE / 4);
    range(v, FAULT_SEED, Long.MIN_VALUE, Long.MAX_VALUE);
    for (Key k : List.of(FAULT_DROP, FAULT_DUPLICATE, FAULT_REORDER, FAULT_CORRUPT, FAULT_DELAY)) {
      rate(v, k);
    }
    range(v, FAULT_DELAY_NS, 0, Long.MAX_VALUE / 4);
    range(v, FAULT_REORDER_NS, 1, Long.MAX_VALUE / 4);
    io.github.verbs4j.fabric.topo.TopologySpec.parse(v.get(TOPOLOGY.name()));
    io.github.verbs4j.fabric.fault.FaultScript.parse(v.get(FAULT_SCRIPT.name()));
    String c = v.get(COORDINATOR.name());
    if (!c.isEmpty()) {
      CoordinatorAddress.parse(c);
    }
  }

  private static void choice(Map<String, String> v, Key k, String... allowed) {
    String val = v.get(k.name()).toLowerCase(Locale.ROOT);
    for (String a : allowed) {
      if (a.equals(val)) {
        v.put(k.name(), a);
        return;
      }
    }
    throw new IllegalArgumentException(k.name() + "=" + v.get(k.name()) + " must be one of " + List.of(allowed));
  }

  private static void range(Map<String, String> v, Key k, long min, long max) {
    long x;
    try {
      x = Long.parseLong(v.get(k.name()));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(k.name() + "=" + v.get(k.name()) + " is not an integer", e);
    }
    if (x < min || x > max) {
      throw new IllegalArgumentException(k.name() + "=" + x + " is outside [" + min + ", " + max + "]");
    }
  }

  private static void rate(Map<String, String> v, Key k) {
    double x;
    try {
      x = Double.parseDouble(v.get(k.name()));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(k.name() + "=" + v.get(k.name()) + " is not a number", e);
    }
    if (!(x >= 0.0 && x <= 1.0)) {
      throw new IllegalArgumentException(k.name() + "=" + v.get(k.name()) + " must be a probability in [0, 1]");
    }
  }

  private static long longValue(Map<String, String> v, Key k) {
    return Long.parseLong(v.get(k.name()));
  }

  /**
   * A copy with one more setting, validated again.
   *
   * @param key a key
   * @param value its value
   * @return new options (rank and size re-derived; the environment is not consulted again)
   */
  public FabricOptions with(String key, String value) {
    Map<String, String> m = new LinkedHashMap<>(values);
    m.put(key, value);
    if (!RANK.name().equals(key) && values.get(RANK.name()).equals("-1")) {
      m.put(RANK.name(), Integer.toString(rank));
    }
    if (!SIZE.name().equals(key) && values.get(SIZE.name()).equals("-1")) {
      m.put(SIZE.name(), Integer.toString(size));
    }
    return from(m, Map.of());
  }

  /**
   * @param key a key
   * @return its effective value as text
   */
  public String get(Key key) {
    return values.get(key.name());
  }

  /**
   * @param key a key
   * @return its value as a long
   */
  public long getLong(Key key) {
    return Long.parseLong(values.get(key.name()));
  }

  /**
   * @param key a rate key
   * @return its value as a double
   */
  public double getDouble(Key key) {
    return Double.parseDouble(values.get(key.name()));
  }

  /** @return {@code local} or {@code netty} */
  public String fabric() {
    return get(FABRIC);
  }

  /** @return true for the deterministic mode (events in modelled-time order, local or netty) */
  public boolean deterministic() {
    return "deterministic".equals(get(MODE));
  }

  /** @return true if TCP connections use mutual TLS ({@link #TLS}) */
  public boolean tls() {
    return "on".equals(get(TLS));
  }

  /** @return where the job's key-value pairs live ({@link #KVS}) */
  public KvsPlacement kvsPlacement() {
    return KvsPlacement.fromValue(get(KVS));
  }

  /** @return true if node clocks are modelled (always true in the deterministic mode) */
  public boolean modelledTime() {
    return "modelled".equals(get(TIME)) || deterministic();
  }

  /** @return this process's rank */
  public int rank() {
    return rank;
  }

  /** @return the number of ranks */
  public int size() {
    return size;
  }

  /** @return the fabric MTU: the largest payload in bytes */
  public int mtu() {
    return (int) getLong(LINK_MTU);
  }

  /** @return every effective setting, one {@code key=value} per key */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("FabricOptions{");
    for (Map.Entry<String, String> e : values.entrySet()) {
      sb.append(e.getKey()).append('=').append(e.getValue()).append(", ");
    }
    return sb.append("rank=").append(rank).append(", size=").append(size).append('}').toString();
  }

  /**
   * A parsed {@code verbs.coordinator} value.
   *
   * @param embedded true if rank 0 runs the coordinator
   * @param host host to bind (embedded) and connect to
   * @param port port (0 = ephemeral, embedded only)
   */
  public record CoordinatorAddress(boolean embedded, String host, int port) {
    /**
     * @param spec {@code host:port}, {@code embedded:port} or {@code embedded:host:port}
     * @return the address
     * @throws IllegalArgumentException naming the value if malformed
     */
    public static CoordinatorAddress parse(String spec) {
      String s = spec.trim();
      boolean embedded = false;
      if (s.startsWith("embedded:")) {
        embedded = true;
        s = s.substring("embedded:".length());
      }
      String host = "127.0.0.1";
      String port = s;
      int colon = s.lastIndexOf(':');
      if (colon >= 0) {
        host = s.substring(0, colon);
        port = s.substring(colon + 1);
        if (host.startsWith("[") && host.endsWith("]")) {
          host = host.substring(1, host.length() - 1);
        }
      } else if (!embedded) {
        throw new IllegalArgumentException("verbs.coordinator=" + spec + " must be host:port or embedded:[host:]port");
      }
      int p;
      try {
        p = Integer.parseInt(port);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("verbs.coordinator=" + spec + ": port '" + port + "' is not a number", e);
      }
      if (p < 0 || p > 65535 || (p == 0 && !embedded) || host.isEmpty()) {
        throw new IllegalArgumentException("verbs.coordinator=" + spec + ": port " + p + " or host '" + host + "' invalid");
      }
      return new CoordinatorAddress(embedded, host, p);
    }
  }
}
