package io.github.verbs4j.fabric.coord;

import static io.github.verbs4j.fabric.coord.CoordinatorProtocol.*;

import io.github.verbs4j.fabric.FabricException;
import io.github.verbs4j.fabric.JobChannel;
import io.github.verbs4j.fabric.NodeInfo;
import io.github.verbs4j.fabric.auth.Handshake;
import io.github.verbs4j.fabric.auth.JobSecret;
import io.github.verbs4j.fabric.auth.JobTls;
import io.github.verbs4j.fabric.auth.PrivateDir;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.SequenceInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator server: nodes connect over TCP, join with their rank, and get node id {@code
 * rank + 1}, the job size, the topology spec and, whenever membership changes, the node directory.
 * A node whose connection closes (a process that exits or is killed: the kernel closes its
 * sockets) or that sends no heartbeat for the peer timeout is marked down and every other node is
 * sent {@code PEER_DOWN}. It also serves the key-value store and barriers ({@link
 * CoordinatorState}); with {@code verbs.fabric.kvs=hashed} (fixed, like the size, by the first
 * HELLO) it holds no pair but relays each put and get to the member that holds the key ({@link
 * KvsRelay}).
 *
 * <p>The job size and topology are fixed by the first node that joins; a later node with another
 * size or topology, or a rank already taken, is refused with an error naming the value. One
 * reader thread per connection plus an acceptor and a watchdog thread, all daemons. Thread-safe.
 *
 * <p>Every connection first proves the job's secret ({@link Handshake}, fixed-size messages read
 * under {@link #AUTH_TIMEOUT}); one that does not is closed before any message is read, and counted
 * in {@link #rejected()}. The secret is the one given, else {@link JobSecret#fromEnvironment}, else
 * a fresh one; it is left in a 0600 file of the user's {@link PrivateDir} ({@code
 * c-<port>-<pid>.key}) for ranks on this host, deleted on close. Messages are read as their bytes
 * arrive (a declared length allocates nothing up front), at most {@link #MAX_CONNECTIONS}
 * connections are open at once, and a connection silent for the peer timeout is closed.
 *
 * <p>TLS ({@code verbs.fabric.tls=on}): a connection whose first byte starts a TLS record is served
 * over mutual TLS 1.3 on the job's key ({@link JobTls}), the handshake above then running inside
 * it; a coordinator started with {@code requireTls} refuses any other.
 *
 * <pre>{@code
 * try (Coordinator c = Coordinator.start("127.0.0.1", 0, Duration.ofMillis(3000))) {
 *   int port = c.port();   // hand to processes as verbs.coordinator=127.0.0.1:port
 * }
 * }</pre>
 */
public final class Coordinator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Coordinator.class);

  /** How long a new connection has to complete its handshake. */
  public static final Duration AUTH_TIMEOUT = Duration.ofSeconds(10);
  /** Most connections open at once (authenticated or not); more are closed at accept. */
  public static final int MAX_CONNECTIONS = 4096;

  private final ServerSocket server;
  private final JobSecret secret;
  private final Path keyFile;
  private final boolean requireTls;
  private SSLContext tls; // built on the first TLS connection; guarded by this
  private final LongAdder rejected = new LongAdder();
  private final Duration peerTimeout;
  private final ScheduledExecutorService watchdog;
  private final Thread acceptor;
  private final List<Conn> conns = new ArrayList<>();
  private final Map<Integer, Member> members = new TreeMap<>();
  /** Orders directory broadcasts: see {@link #broadcastDirectory()}. */
  private final Object broadcastOrder = new Object();
  private CoordinatorState state;
  private int size;
  private String topology;
  private KvsPlacement placement; // fixed by the first HELLO, like size and topology
  private volatile KvsRelay relay; // verbs.fabric.kvs=hashed: set with the placement
  private volatile boolean closed;

  private static final class Member {
    final int rank;
    final String address;
    final String host;
    boolean up = true;
    Conn conn;

    Member(int rank, String address, String host, Conn conn) {
      this.rank = rank;
      this.address = address;
      this.host = host;
      this.conn = conn;
    }
  }

  private final class Conn implements Runnable, KvsRelay.Endpoint {
    volatile Socket socket; // the TCP socket, or the TLS socket over it once the peer starts TLS
    volatile DataOutputStream out;
    final long accepted = System.nanoTime();
    volatile long lastSeen = accepted;
    volatile int rank = -1;
    volatile boolean authenticated;

    Conn(Socket socket) throws IOException {
      this.socket = socket;
      this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 512));
    }

    @Override
    public void send(int op, long id, Body body) {
      synchronized (out) {
        try {
          write(out, op, id, body);
        } catch (IOException e) {
          LOG.debug("coordinator: write to rank {} failed: {}", rank, e.toString());
          closeQuietly();
        }
      }
    }

    @Override
    public int memberRank() {
      return rank;
    }

    void closeQuietly() {
      try {
        socket.close();
      } catch (IOException ignored) {
        // already closing
      }
    }

    @Override
    public void run() {
      try (DataInputStream in = open()) {
        if (in == null || !authenticate(in)) {
          return;
        }
        while (!closed) {
          Message m = read(in);
          lastSeen = System.nanoTime();
          handle(this, m);
        }
      } catch (IOException e) {
        LOG.debug("coordinator: connection of rank {} ended: {}", rank, e.toString());
      } catch (RuntimeException e) {
        LOG.warn("coordinator: bad message from rank {}", rank, e);
      } finally {
        closeQuietly();
        lost(this, "connection closed");
      }
    }

    /**
     * Looks at the first byte: a TLS handshake record starts TLS on the socket, anything else is
     * read as it is (unless TLS is required).
     *
     * @return the stream to read messages from, or null if the connection was refused (counted)
     */
    private DataInputStream open() throws IOException {
      int first;
      try {
        socket.setSoTimeout((int) AUTH_TIMEOUT.toMillis());
        first = socket.getInputStream().read();
      } catch (java.net.SocketTimeoutException e) {
        reject(Handshake.Failure.TIMEOUT.tag(), "no handshake within " + AUTH_TIMEOUT.toMillis() + " ms");
        return null;
      }
      if (first < 0) {
        reject(Handshake.Failure.CLOSED.tag(), "closed before its first byte");
        return null;
      }
      ByteArrayInputStream head = new ByteArrayInputStream(new byte[] {(byte) first});
      if (first != TLS_HANDSHAKE_RECORD) {
        if (requireTls) {
          reject(Handshake.Failure.TLS.tag(), "plain text to a coordinator that requires TLS (verbs.fabric.tls=on)");
          return null;
        }
        return new DataInputStream(new BufferedInputStream(new SequenceInputStream(head, socket.getInputStream()), 512));
      }
      try {
        SSLContext c = tls();
        SSLSocket s = (SSLSocket) c.getSocketFactory().createSocket(socket, head, true);
        s.setSSLParameters(JobTls.parameters(c));
        s.startHandshake();
        socket = s;
        out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream(), 512));
        return new DataInputStream(new BufferedInputStream(s.getInputStream(), 512));
      } catch (IOException e) { // SSLException, or the peer closed or went silent mid-handshake
        reject(Handshake.Failure.TLS.tag(), e.toString());
        return null;
      }
    }

    /** Runs the server side of the handshake; false (counted, logged) if the peer fails it. */
    private boolean authenticate(DataInputStream in) throws IOException {
      Handshake h = Handshake.server(secret, Handshake.Kind.COORDINATOR);
      try {
        socket.setSoTimeout((int) AUTH_TIMEOUT.toMillis());
        byte[] hello = new byte[Handshake.HELLO_LENGTH];
        in.readFully(hello);
        byte[] challenge = h.challenge(hello, 0, 0);
        synchronized (out) {
          out.write(challenge);
          out.flush();
        }
        byte[] proof = new byte[Handshake.PROOF_LENGTH];
        in.readFully(proof);
        h.verify(proof);
        socket.setSoTimeout(0);
        lastSeen = System.nanoTime();
        authenticated = true;
        return true;
      } catch (Handshake.AuthException e) {
        reject(e.failure().tag(), e.getMessage());
      } catch (java.net.SocketTimeoutException e) {
        reject(Handshake.Failure.TIMEOUT.tag(), "no handshake within " + AUTH_TIMEOUT.toMillis() + " ms");
      } catch (IOException e) {
        reject(Handshake.Failure.CLOSED.tag(), e.toString());
      }
      return false;
    }

    private void reject(String why, String detail) {
      rejected.increment();
      LOG.warn("coordinator: refused connection from {}: {} ({})", socket.getRemoteSocketAddress(), why, detail);
    }
  }

  private Coordinator(ServerSocket server, Duration peerTimeout, JobSecret secret, Path keyFile, boolean requireTls) {
    this.server = server;
    this.requireTls = requireTls;
    this.secret = secret;
    this.keyFile = keyFile;
    this.peerTimeout = peerTimeout;
    this.watchdog = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "verbs4j-coordinator-watchdog"));
    this.acceptor = daemon(this::acceptLoop, "verbs4j-coordinator-accept-" + server.getLocalPort());
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /**
   * Starts a coordinator with the secret of {@link JobSecret#fromEnvironment}, else a fresh one.
   *
   * @param host address to bind
   * @param port port to bind, 0 = ephemeral
   * @param peerTimeout a node silent this long is declared down (clients send heartbeats)
   * @return the running coordinator
   * @throws FabricException naming host and port if it cannot bind
   */
  public static Coordinator start(String host, int port, Duration peerTimeout) {
    return start(host, port, peerTimeout, JobSecret.fromEnvironment(System.getenv()).orElseGet(JobSecret::generate));
  }

  /**
   * Starts a coordinator.
   *
   * @param host address to bind
   * @param port port to bind, 0 = ephemeral
   * @param peerTimeout a node silent this long is declared down (clients send heartbeats)
   * @param secret the job secret every connection must prove
   * @return the running coordinator
   * @throws FabricException naming host and port if it cannot bind
   */
  public static Coordinator start(String host, int port, Duration peerTimeout, JobSecret secret) {
    return start(host, port, peerTimeout, secret, false);
  }

  /**
   * Starts a coordinator.
   *
   * @param host address to bind
   * @param port port to bind, 0 = ephemeral
   * @param peerTimeout a node silent this long is declared down (clients send heartbeats)
   * @param secret the job secret every connection must prove
   * @param requireTls refuse connections that do not start TLS ({@code verbs.fabric.tls=on})
   * @return the running coordinator
   * @throws FabricException naming host and port if it cannot bind
   */
  public static Coordinator start(String host, int port, Duration peerTimeout, JobSecret secret, boolean requireTls) {
    try {
      ServerSocket s = new ServerSocket();
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getByName(host), port), 128);
      Path dir = PrivateDir.of("");
      PrivateDir.cleanStale(dir);
      Path key = PrivateDir.coordinatorKey(dir, s.getLocalPort());
      try {
        secret.write(key);
      } catch (FabricException e) {
        s.close();
        throw e;
      }
      Coordinator c = new Coordinator(s, peerTimeout, secret, key, requireTls);
      if (requireTls) {
        c.tls(); // now, not within the first connection's handshake time
      }
      c.acceptor.start();
      long period = Math.max(10, peerTimeout.toMillis() / 4);
      c.watchdog.scheduleAtFixedRate(c::checkLiveness, period, period, TimeUnit.MILLISECONDS);
      LOG.info("coordinator listening on {}:{}", host, c.port());
      return c;
    } catch (IOException e) {
      throw new FabricException("coordinator cannot bind host=" + host + " port=" + port + ": " + e.getMessage(), e);
    }
  }

  /** @return the job secret every connection proves (a launcher hands it to its ranks) */
  public JobSecret secret() {
    return secret;
  }

  /** @return the 0600 file holding the job secret, for ranks on this host (deleted on close) */
  public Path secretFile() {
    return keyFile;
  }

  /** The first byte of a TLS handshake record (RFC 8446 5.1, ContentType handshake). */
  private static final int TLS_HANDSHAKE_RECORD = 22;

  private synchronized SSLContext tls() {
    if (tls == null) {
      tls = JobTls.of(secret).jdk();
    }
    return tls;
  }

  /** @return connections closed because they did not prove the job secret */
  public long rejected() {
    return rejected.sum();
  }

  /** @return where the job's pairs live, fixed by the first member's HELLO; null before it */
  public synchronized KvsPlacement kvsPlacement() {
    return placement;
  }

  /**
   * @return what the coordinator holds of the key-value store: every pair with {@code
   *     verbs.fabric.kvs=root}; with {@code hashed} none, only the puts and gets it is relaying (sent
   *     to their holder and not yet answered, or queued for a holder that has not joined)
   */
  public JobChannel.CoordinatorKvs kvs() {
    CoordinatorState st = stateOrNull();
    KvsRelay r = relay;
    return new JobChannel.CoordinatorKvs(st == null ? 0 : st.rootKvsPairs(), st == null ? 0 : st.rootKvsBytes(),
        r == null ? 0 : r.inFlight());
  }

  /** @return the bound port */
  public int port() {
    return server.getLocalPort();
  }

  /** @return the bound address as {@code host:port} */
  public String address() {
    return server.getInetAddress().getHostAddress() + ":" + port();
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket s = server.accept();
        s.setTcpNoDelay(true);
        Conn c = new Conn(s);
        synchronized (this) {
          if (closed) {
            s.close();
            return;
          }
          if (conns.size() >= MAX_CONNECTIONS) {
            rejected.increment();
            LOG.warn("coordinator: {} connections open, refusing {}", conns.size(), s.getRemoteSocketAddress());
            s.close();
            continue;
          }
          conns.add(c);
        }
        daemon(c, "verbs4j-coordinator-conn-" + s.getPort()).start();
      } catch (SocketException e) {
        if (!closed) {
          LOG.warn("coordinator accept failed", e);
        }
        return;
      } catch (IOException e) {
        LOG.warn("coordinator accept failed", e);
      }
    }
  }

  private void handle(Conn c, Message m) throws IOException {
    DataInputStream in = m.body();
    switch (m.op()) {
      case HELLO -> hello(c, m.requestId(), in.readInt(), in.readInt(), in.readUTF(), in.readUTF(), in.readUTF(), in.readUTF());
      case PUT -> {
        String key = in.readUTF();
        byte[] v = readBytes(in);
        long timeoutMs = in.readLong();
        CoordinatorState st = stateOrNull();
        try {
          if (st == null) {
            throw new IllegalStateException("PUT before HELLO");
          }
          KvsRelay r = relay;
          if (r != null) {
            r.put(c, m.requestId(), key, v, timeoutMs);
            return;
          }
          st.put(key, v);
          c.send(OK, m.requestId(), null);
        } catch (RuntimeException e) {
          String msg = e.getMessage();
          c.send(ERROR, m.requestId(), o -> o.writeUTF(msg));
        }
      }
      case GET -> {
        String key = in.readUTF();
        long timeoutMs = in.readLong();
        CoordinatorState st = stateOrNull();
        if (st == null) {
          c.send(ERROR, m.requestId(), o -> o.writeUTF("GET before HELLO"));
          return;
        }
        KvsRelay r = relay;
        if (r != null) {
          r.get(c, m.requestId(), key, timeoutMs);
          return;
        }
        CompletableFuture<byte[]> f = st.get(key);
        f.thenAccept(v -> c.send(VALUE, m.requestId(), o -> writeBytes(o, v)));
      }
      case BARRIER -> {
        String name = in.readUTF();
        CoordinatorState st = stateOrNull();
        if (st == null || c.rank < 0) {
          c.send(ERROR, m.requestId(), o -> o.writeUTF("BARRIER before HELLO"));
          return;
        }
        st.barrier(name, c.rank).thenRun(() -> c.send(OK, m.requestId(), null));
      }
      case STEP -> {
        long round = in.readLong();
        CoordinatorState.StepReport r = new CoordinatorState.StepReport(in.readLong(), in.readLong(), in.readLong(), in.readBoolean(),
            in.readBoolean());
        CoordinatorState st = stateOrNull();
        try {
          if (st == null || c.rank < 0) {
            throw new IllegalStateException("STEP before HELLO");
          }
          st.step(round, c.rank, r).thenAccept(res -> c.send(STEPPED, m.requestId(), o -> {
            o.writeLong(res.next());
            o.writeLong(res.sent());
            o.writeLong(res.received());
            o.writeBoolean(res.allLeft());
            o.writeBoolean(res.allAtBarrier());
          }));
        } catch (RuntimeException e) {
          String msg = e.getMessage();
          c.send(ERROR, m.requestId(), o -> o.writeUTF(msg));
        }
      }
      case MISSING -> {
        String name = in.readUTF();
        CoordinatorState st = stateOrNull();
        List<Integer> missing = st == null ? List.of() : st.missing(name);
        c.send(RANKS, m.requestId(), o -> {
          o.writeInt(missing.size());
          for (int r : missing) {
            o.writeInt(r);
          }
        });
      }
      case OK, VALUE, ERROR -> { // a holder's answer to a relayed request
        KvsRelay r = relay;
        if (r == null) {
          throw new IOException("coordinator op=" + m.op() + " from rank " + c.rank + " with verbs.fabric.kvs=root");
        }
        r.answer(c, m.op(), m.requestId(), in);
      }
      case KVS_USAGE -> {
        JobChannel.CoordinatorKvs k = kvs();
        c.send(KVS_USED, m.requestId(), o -> {
          o.writeLong(k.pairs());
          o.writeLong(k.bytes());
          o.writeLong(k.inFlight());
        });
      }
      case HEARTBEAT -> { }
      case BYE -> {
        lost(c, "left");
        c.closeQuietly();
      }
      default -> throw new IOException("unknown coordinator op=" + m.op());
    }
  }

  private synchronized CoordinatorState stateOrNull() {
    return state;
  }

  private void hello(Conn c, long id, int rank, int size, String address, String host, String topo, String kvs) {
    String error = null;
    KvsPlacement p;
    try {
      p = KvsPlacement.fromValue(kvs);
    } catch (IllegalArgumentException e) {
      String msg = e.getMessage();
      c.send(ERROR, id, o -> o.writeUTF(msg));
      return;
    }
    synchronized (this) {
      if (this.size == 0) {
        this.size = size;
        this.topology = topo;
        this.placement = p;
        this.state = new CoordinatorState(size);
        this.relay = p == KvsPlacement.HASHED && size > 0 ? new KvsRelay(size) : null;
      }
      if (size != this.size) {
        error = "verbs.size=" + size + " differs from the job's size " + this.size;
      } else if (p != placement) {
        error = "verbs.fabric.kvs=" + p.value() + " differs from the job's " + placement.value();
      } else if (!topo.equals(this.topology)) {
        error = "verbs.topology=" + topo + " differs from the job's topology " + this.topology;
      } else if (rank < 0 || rank >= size) {
        error = "verbs.rank=" + rank + " outside [0, " + size + ")";
      } else if (members.containsKey(rank)) {
        error = "verbs.rank=" + rank + " already joined (" + (members.get(rank).up ? "up" : "down") + ")";
      } else {
        c.rank = rank;
        members.put(rank, new Member(rank, address, host, c));
      }
    }
    if (error != null) {
      String msg = error;
      c.send(ERROR, id, o -> o.writeUTF(msg));
      return;
    }
    int sz = this.size;
    String tp = this.topology;
    c.send(WELCOME, id, o -> {
      o.writeInt(rank + 1);
      o.writeInt(sz);
      o.writeUTF(tp);
    });
    LOG.info("coordinator: rank {} joined as node {} at {}", rank, rank + 1, address);
    KvsRelay r = relay;
    if (r != null) {
      r.joined(rank, c);
    }
    broadcastDirectory();
  }

  /**
   * Sends every live member the current directory. Snapshot and sends happen under {@link
   * #broadcastOrder}, so two joins handled at once cannot deliver an older snapshot after a newer
   * one (a node would then wait for a rank that had joined).
   */
  private void broadcastDirectory() {
    synchronized (broadcastOrder) {
      broadcastDirectoryInOrder();
    }
  }

  private void broadcastDirectoryInOrder() {
    List<NodeInfo> dir = new ArrayList<>();
    List<Conn> targets = new ArrayList<>();
    synchronized (this) {
      for (Member m : members.values()) {
        dir.add(new NodeInfo(m.rank + 1, m.rank, m.address, m.host, m.up));
        if (m.up) {
          targets.add(m.conn);
        }
      }
    }
    for (Conn t : targets) {
      t.send(DIRECTORY, 0, o -> {
        o.writeInt(dir.size());
        for (NodeInfo n : dir) {
          o.writeInt(n.nodeId());
          o.writeInt(n.rank());
          o.writeUTF(n.address());
          o.writeUTF(n.host());
          o.writeBoolean(n.up());
        }
      });
    }
  }

  private void lost(Conn c, String why) {
    int rank = c.rank;
    KvsRelay r = relay;
    if (r != null) {
      r.lost(c, rank);
    }
    List<Conn> targets = new ArrayList<>();
    synchronized (this) {
      conns.remove(c);
      Member m = rank >= 0 ? members.get(rank) : null;
      if (m == null || !m.up || m.conn != c) {
        return;
      }
      m.up = false;
      for (Member o : members.values()) {
        if (o.up) {
          targets.add(o.conn);
        }
      }
    }
    if (!closed) {
      LOG.info("coordinator: node {} (rank {}) down: {}", rank + 1, rank, why);
    }
    for (Conn t : targets) {
      t.send(PEER_DOWN, 0, o -> o.writeInt(rank + 1));
    }
    broadcastDirectory();
  }

  private void checkLiveness() {
    long now = System.nanoTime();
    KvsRelay r = relay;
    if (r != null) {
      r.expire(now);
    }
    List<Conn> all;
    synchronized (this) {
      all = new ArrayList<>(conns);
    }
    for (Conn c : all) {
      if (!c.authenticated) {
        // The handshake has its own limit: a rank's fresh JVM may take a while to prove the secret.
        if (now - c.accepted > AUTH_TIMEOUT.toNanos()) {
          c.closeQuietly();
        }
        continue;
      }
      if (now - c.lastSeen > peerTimeout.toNanos()) {
        c.closeQuietly();
        lost(c, "no heartbeat for " + peerTimeout.toMillis() + " ms");
      } else if (c.authenticated) {
        c.send(HEARTBEAT, 0, null);
      }
    }
  }

  /** Stops the coordinator and closes every connection. Idempotent. */
  @Override
  public void close() {
    List<Conn> all;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      all = new ArrayList<>(conns);
    }
    watchdog.shutdownNow();
    try {
      server.close();
    } catch (IOException e) {
      LOG.debug("coordinator close", e);
    }
    for (Conn c : all) {
      c.closeQuietly();
    }
    try {
      Files.deleteIfExists(keyFile);
    } catch (IOException e) {
      LOG.warn("coordinator: cannot delete {}: {}", keyFile, e.toString());
    }
  }
}
