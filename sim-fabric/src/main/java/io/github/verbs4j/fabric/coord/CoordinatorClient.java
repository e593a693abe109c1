package io.github.verbs4j.fabric.coord;

import static io.github.verbs4j.fabric.coord.CoordinatorProtocol.*;

import io.github.verbs4j.fabric.FabricException;
import io.github.verbs4j.fabric.FabricTimeoutException;
import io.github.verbs4j.fabric.JobChannel;
import io.github.verbs4j.fabric.NodeDirectory;
import io.github.verbs4j.fabric.NodeInfo;
import io.github.verbs4j.fabric.auth.Handshake;
import io.github.verbs4j.fabric.auth.JobTls;
import io.github.verbs4j.fabric.auth.JobSecret;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's connection to the {@link Coordinator}: join, directory and peer-down events, key-value
 * store, barriers, heartbeats. Every blocking call takes a timeout. Thread-safe.
 *
 * <p>With {@link KvsPlacement#HASHED} the client also holds the pairs whose keys hash to its rank:
 * it answers the coordinator's {@link CoordinatorProtocol#HELD_PUT} and {@link
 * CoordinatorProtocol#HELD_GET} on its reader thread, keeps a get until its key arrives or its
 * requester's timeout passes, and serves its own puts and gets of such keys without a round trip.
 */
public final class CoordinatorClient implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorClient.class);

  /** Events pushed by the coordinator, called on the client's reader thread. */
  public interface Events {
    /** @param directory a new directory snapshot */
    void onDirectory(NodeDirectory directory);

    /** @param nodeId a node that went down */
    void onPeerDown(int nodeId);

    /** @param cause why the coordinator connection ended (not called after {@link #close()}) */
    void onCoordinatorLost(Throwable cause);
  }

  /**
   * The answer to a join.
   *
   * @param nodeId this node's id
   * @param size the job size
   * @param topology the job's topology spec
   */
  public record Welcome(int nodeId, int size, String topology) {}

  private final Socket socket;
  private final JobSecret secret;
  private final DataOutputStream out;
  private final Events events;
  private final String where;
  private final AtomicLong ids = new AtomicLong();
  private final Map<Long, CompletableFuture<Object>> pending = new ConcurrentHashMap<>();
  private final ScheduledThreadPoolExecutor heartbeat; // also ends held gets at their timeout
  private final Thread reader;
  private final KvsShard held = new KvsShard();
  private volatile KvsPlacement placement = KvsPlacement.ROOT; // set by hello, with rank and size
  private volatile int rank = -1;
  private volatile int size;
  private volatile boolean closed;
  private volatile Throwable lostCause;

  private CoordinatorClient(Socket socket, JobSecret secret, DataInputStream in, Events events, String where,
      Duration heartbeatPeriod) throws IOException {
    this.socket = socket;
    this.secret = secret;
    this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 8192));
    this.events = events;
    this.where = where;
    this.reader = new Thread(() -> readLoop(in), "verbs4j-coordinator-client-" + socket.getLocalPort());
    reader.setDaemon(true);
    this.heartbeat = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "verbs4j-heartbeat-" + socket.getLocalPort());
      t.setDaemon(true);
      return t;
    });
    heartbeat.setRemoveOnCancelPolicy(true);
    long p = Math.max(1, heartbeatPeriod.toMillis());
    heartbeat.scheduleAtFixedRate(() -> send(HEARTBEAT, 0, null), p, p, TimeUnit.MILLISECONDS);
  }

  /**
   * Connects with the job secret of {@link JobSecret#forCoordinator}, retrying while the
   * coordinator is not yet listening.
   *
   * @param host coordinator host
   * @param port coordinator port
   * @param timeout how long to keep trying
   * @param heartbeatPeriod heartbeat interval
   * @param events where events go
   * @return the connected client
   * @throws FabricTimeoutException naming the address if it cannot connect in time
   */
  public static CoordinatorClient connect(String host, int port, Duration timeout, Duration heartbeatPeriod, Events events) {
    return connect(host, port, timeout, heartbeatPeriod, events, () -> JobSecret.forCoordinator(System.getenv(), port));
  }

  /**
   * Connects and proves the job secret ({@link Handshake}), retrying while the coordinator is not
   * yet listening or its secret is not yet to be found.
   *
   * @param host coordinator host
   * @param port coordinator port
   * @param timeout how long to keep trying
   * @param heartbeatPeriod heartbeat interval
   * @param events where events go
   * @param secrets gives the job secret; asked again on each attempt
   * @return the connected client
   * @throws FabricTimeoutException naming the address if it cannot connect in time
   * @throws Handshake.AuthException if the coordinator does not prove the same secret
   */
  public static CoordinatorClient connect(String host, int port, Duration timeout, Duration heartbeatPeriod, Events events,
      Supplier<JobSecret> secrets) {
    return connect(host, port, timeout, heartbeatPeriod, events, secrets, false);
  }

  /**
   * {@link #connect(String, int, Duration, Duration, Events, Supplier)}, over mutual TLS 1.3 on the
   * job's key ({@link JobTls}) if {@code tls}; the handshake then runs inside it.
   *
   * @param host coordinator host
   * @param port coordinator port
   * @param timeout how long to keep trying
   * @param heartbeatPeriod heartbeat interval
   * @param events where events go
   * @param secrets gives the job secret; asked again on each attempt
   * @param tls whether to start TLS ({@code verbs.fabric.tls=on})
   * @return the connected client
   * @throws FabricTimeoutException naming the address if it cannot connect in time
   * @throws Handshake.AuthException if the coordinator does not prove the same secret
   */
  public static CoordinatorClient connect(String host, int port, Duration timeout, Duration heartbeatPeriod, Events events,
      Supplier<JobSecret> secrets, boolean tls) {
    long deadline = System.nanoTime() + timeout.toNanos();
    Exception last = null;
    long backoffMs = 10;
    JobSecret refused = null;
    FabricException noSecret = null;
    JobSecret tlsFor = null;
    javax.net.ssl.SSLContext tlsContext = null;
    while (true) {
      Socket s = new Socket();
      try {
        s.setTcpNoDelay(true);
        long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
        JobSecret secret = secrets.get(); // before connecting: a process without one knocks at nobody's door
        noSecret = null;
        if (secret.equals(refused)) {
          throw new Handshake.AuthException(Handshake.Failure.BAD_PROOF, "coordinator " + host + ":" + port
              + " does not prove this process's job secret: it runs another job, or " + JobSecret.ENV + " differs");
        }
        if (tls && !secret.equals(tlsFor)) {
          // Before connecting: making the key and certificate is slow on a loaded host, and the
          // coordinator gives a connection AUTH_TIMEOUT to start.
          tlsContext = JobTls.of(secret).jdk();
          tlsFor = secret;
        }
        s.connect(new InetSocketAddress(host, port), (int) Math.min(left, 5000));
        s.setSoTimeout((int) Math.min(Math.max(left, 1000), 30_000));
        if (tls) {
          s = startTls(s, host, port, tlsContext);
        }
        DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream(), 8192));
        try {
          authenticate(s, in, secret);
        } catch (Handshake.AuthException e) {
          // A coordinator's secret file may have been replaced since it was read: try once more.
          refused = secret;
          throw new IOException(e.getMessage(), e);
        }
        s.setSoTimeout(0);
        CoordinatorClient c = new CoordinatorClient(s, secret, in, events, host + ":" + port, heartbeatPeriod);
        c.reader.start();
        return c;
      } catch (Handshake.AuthException e) {
        closeQuietly(s);
        throw e;
      } catch (FabricException e) {
        noSecret = e;
        closeQuietly(s);
      } catch (IOException e) {
        last = e;
        closeQuietly(s);
      }
      if (System.nanoTime() - deadline >= 0) {
        if (noSecret != null) {
          throw noSecret;
        }
        FabricTimeoutException t = new FabricTimeoutException("cannot reach coordinator verbs.coordinator=" + host + ":"
            + port + " within " + timeout + ": " + last.getMessage());
        t.initCause(last);
        throw t;
      }
      try {
        Thread.sleep(backoffMs);
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
        throw new FabricException("interrupted while connecting to coordinator " + host + ":" + port, ie);
      }
      backoffMs = Math.min(200, backoffMs * 2);
    }
  }

  /**
   * Starts TLS on a connected socket (client side) and completes its handshake.
   *
   * @throws Handshake.AuthException if the coordinator does not present the job's key (it is of
   *     another job) or speaks no TLS
   */
  private static Socket startTls(Socket s, String host, int port, javax.net.ssl.SSLContext c) throws IOException {
    javax.net.ssl.SSLSocket ssl = (javax.net.ssl.SSLSocket) c.getSocketFactory().createSocket(s, host, port, true);
    ssl.setSSLParameters(JobTls.parameters(c));
    ssl.setUseClientMode(true);
    try {
      ssl.startHandshake();
    } catch (javax.net.ssl.SSLHandshakeException e) {
      closeQuietly(ssl);
      throw new Handshake.AuthException(Handshake.Failure.TLS, "coordinator " + host + ":" + port
          + " refused TLS or does not hold this job's key (verbs.fabric.tls=on): " + e.getMessage());
    }
    return ssl;
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // never connected
    }
  }

  private static void authenticate(Socket s, DataInputStream in, JobSecret secret) throws IOException {
    Handshake h = Handshake.client(secret, Handshake.Kind.COORDINATOR, 0, 0);
    java.io.OutputStream o = s.getOutputStream();
    o.write(h.hello());
    o.flush();
    byte[] challenge = new byte[Handshake.CHALLENGE_LENGTH];
    in.readFully(challenge);
    o.write(h.answer(challenge));
    o.flush();
  }

  /** @return the job secret this client proved to the coordinator */
  public JobSecret secret() {
    return secret;
  }

  private void send(int op, long id, Body body) {
    synchronized (out) {
      try {
        write(out, op, id, body);
      } catch (IOException e) {
        if (!closed) {
          LOG.debug("coordinator write failed: {}", e.toString());
        }
        try {
          socket.close();
        } catch (IOException ignored) {
          // closing anyway
        }
      }
    }
  }

  private Object call(int op, Body body, Duration timeout, String what) {
    if (closed) {
      throw new FabricException(what + ": coordinator client is closed");
    }
    Throwable lost = lostCause;
    if (lost != null) {
      throw new FabricException(what + ": coordinator " + where + " lost: " + lost.getMessage(), lost);
    }
    long id = ids.incrementAndGet();
    CompletableFuture<Object> f = new CompletableFuture<>();
    pending.put(id, f);
    try {
      send(op, id, body);
      return f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new FabricTimeoutException(what + " timed out after " + timeout);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      throw c instanceof FabricException fe ? new FabricException(what + ": " + fe.getMessage(), fe)
          : new FabricException(what + ": " + c, c);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FabricException(what + " interrupted", e);
    } finally {
      pending.remove(id);
    }
  }

  /**
   * Joins the job.
   *
   * @param rank this process's rank
   * @param size job size
   * @param address data-plane address
   * @param host host name
   * @param topology topology spec
   * @param timeout how long to wait for the answer
   * @return the assigned node id and the job's size and topology
   * @throws FabricException naming the value the coordinator refused
   */
  public Welcome hello(int rank, int size, String address, String host, String topology, Duration timeout) {
    return hello(rank, size, address, host, topology, KvsPlacement.ROOT, timeout);
  }

  /**
   * Joins the job.
   *
   * @param rank this process's rank
   * @param size job size
   * @param address data-plane address
   * @param host host name
   * @param topology topology spec
   * @param kvs where the job's pairs live ({@code verbs.fabric.kvs}; every member must say the same)
   * @param timeout how long to wait for the answer
   * @return the assigned node id and the job's size and topology
   * @throws FabricException naming the value the coordinator refused
   */
  public Welcome hello(int rank, int size, String address, String host, String topology, KvsPlacement kvs,
      Duration timeout) {
    Welcome w = (Welcome) call(HELLO, o -> {
      o.writeInt(rank);
      o.writeInt(size);
      o.writeUTF(address);
      o.writeUTF(host);
      o.writeUTF(topology);
      o.writeUTF(kvs.value());
    }, timeout, "join rank=" + rank);
    this.size = w.size();
    this.rank = rank;
    this.placement = kvs;
    return w;
  }

  /**
   * @param key key
   * @param value value
   * @param timeout how long to wait for the acknowledgement
   * @throws FabricException naming the key if it holds another value
   */
  public void put(String key, byte[] value, Duration timeout) {
    String what = "kvPut key='" + key + "'";
    if (holdsItself(key)) {
      try {
        byte[] v = value.clone();
        KvsShard.complete(held.put(key, v), v);
      } catch (IllegalArgumentException e) {
        throw new FabricException(what + ": " + e.getMessage(), e);
      }
      return;
    }
    if (placement == KvsPlacement.HASHED && value.length > MAX_VALUE) {
      throw new FabricException(what + ": value of " + value.length + " bytes exceeds the " + MAX_VALUE
          + " a verbs.fabric.kvs=hashed put may carry");
    }
    call(PUT, o -> {
      o.writeUTF(key);
      writeBytes(o, value);
      o.writeLong(millis(timeout));
    }, timeout, what);
  }

  /**
   * @param key key
   * @param timeout how long to wait for it to be published
   * @return the value
   */
  public byte[] get(String key, Duration timeout) {
    String what = "kvGet key='" + key + "'";
    if (holdsItself(key)) {
      CompletableFuture<byte[]> f = held.get(key);
      try {
        return f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        held.cancel(key, f);
        throw new FabricTimeoutException(what + " timed out after " + timeout);
      } catch (InterruptedException e) {
        held.cancel(key, f);
        Thread.currentThread().interrupt();
        throw new FabricException(what + " interrupted", e);
      } catch (ExecutionException e) {
        throw new FabricException(what + ": " + e.getCause(), e.getCause());
      }
    }
    return (byte[]) call(GET, o -> {
      o.writeUTF(key);
      o.writeLong(millis(timeout));
    }, timeout, what);
  }

  /** With {@link KvsPlacement#HASHED}: whether this member holds {@code key}, so asks nobody. */
  private boolean holdsItself(String key) {
    int r = rank;
    return placement == KvsPlacement.HASHED && r >= 0 && KvsPlacement.holder(key, size) == r;
  }

  private static long millis(Duration d) {
    return d.compareTo(Duration.ofDays(365)) > 0 ? Duration.ofDays(365).toMillis() : Math.max(0, d.toMillis());
  }

  /**
   * @return the bytes of the pairs this member holds ({@link KvsPlacement#entryBytes} each; 0 with
   *     {@link KvsPlacement#ROOT}, where the coordinator holds them)
   */
  public long kvsBytes() {
    return held.bytes();
  }

  /** @return the pairs this member holds (0 with {@link KvsPlacement#ROOT}) */
  public int kvsPairs() {
    return held.pairs();
  }

  /**
   * @param timeout how long to wait for the answer
   * @return what the coordinator holds of the store
   */
  public JobChannel.CoordinatorKvs coordinatorKvs(Duration timeout) {
    return (JobChannel.CoordinatorKvs) call(KVS_USAGE, null, timeout, "coordinator kvs usage");
  }

  /** Stores a pair the coordinator relays to this holder, and answers. On the reader thread. */
  private void heldPut(long id, String key, byte[] value) {
    List<CompletableFuture<byte[]>> waiting;
    try {
      waiting = held.put(key, value);
    } catch (IllegalArgumentException e) {
      send(ERROR, id, o -> o.writeUTF(e.getMessage()));
      return;
    }
    send(OK, id, null);
    KvsShard.complete(waiting, value);
  }

  /** Answers a get the coordinator relays once the key is here; gives up at the requester's timeout. */
  private void heldGet(long id, String key, long timeoutMs) {
    CompletableFuture<byte[]> f = held.get(key);
    if (!f.isDone()) {
      ScheduledFuture<?> end = heartbeat.schedule(() -> held.cancel(key, f), timeoutMs, TimeUnit.MILLISECONDS);
      f.whenComplete((v, e) -> end.cancel(false));
    }
    f.thenAccept(v -> send(VALUE, id, o -> writeBytes(o, v)));
  }

  /**
   * @param name barrier name
   * @param timeout how long to wait
   */
  public void barrier(String name, Duration timeout) {
    try {
      call(BARRIER, o -> o.writeUTF(name), timeout, "barrier '" + name + "'");
    } catch (FabricTimeoutException e) {
      List<Integer> missing;
      try {
        missing = missing(name, Duration.ofSeconds(2));
      } catch (RuntimeException q) {
        throw e;
      }
      throw new FabricTimeoutException(e.getMessage() + ": ranks " + missing + " missing");
    }
  }

  /**
   * Reports for one round of modelled-time steps and waits for the round's sum.
   *
   * @param round the round (0, 1, ...)
   * @param report this rank's report
   * @param timeout how long to wait for every rank
   * @return the round's sum
   */
  public CoordinatorState.StepResult step(long round, CoordinatorState.StepReport report, Duration timeout) {
    return (CoordinatorState.StepResult) call(STEP, o -> {
      o.writeLong(round);
      o.writeLong(report.next());
      o.writeLong(report.sent());
      o.writeLong(report.received());
      o.writeBoolean(report.left());
      o.writeBoolean(report.atBarrier());
    }, timeout, "modelled-time step round=" + round);
  }

  /**
   * @param name barrier name
   * @param timeout how long to wait for the answer
   * @return ranks that have not entered it
   */
  @SuppressWarnings("unchecked")
  public List<Integer> missing(String name, Duration timeout) {
    return (List<Integer>) call(MISSING, o -> o.writeUTF(name), timeout, "barrier query '" + name + "'");
  }

  private void readLoop(DataInputStream in) {
    try {
      while (true) {
        Message m = read(in);
        DataInputStream b = m.body();
        switch (m.op()) {
          case WELCOME -> complete(m.requestId(), new Welcome(b.readInt(), b.readInt(), b.readUTF()));
          case ERROR -> {
            CompletableFuture<Object> f = pending.get(m.requestId());
            String msg = b.readUTF();
            if (f != null) {
              f.completeExceptionally(new FabricException(msg));
            }
          }
          case OK -> complete(m.requestId(), Boolean.TRUE);
          case STEPPED -> complete(m.requestId(), new CoordinatorState.StepResult(b.readLong(), b.readLong(), b.readLong(), b.readBoolean(),
              b.readBoolean()));
          case VALUE -> complete(m.requestId(), readBytes(b));
          case KVS_USED -> complete(m.requestId(), new JobChannel.CoordinatorKvs(b.readLong(), b.readLong(), b.readLong()));
          case RANKS -> {
            int n = b.readInt();
            List<Integer> r = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
              r.add(b.readInt());
            }
            complete(m.requestId(), r);
          }
          case DIRECTORY -> {
            int n = b.readInt();
            List<NodeInfo> nodes = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
              nodes.add(new NodeInfo(b.readInt(), b.readInt(), b.readUTF(), b.readUTF(), b.readBoolean()));
            }
            events.onDirectory(new NodeDirectory(nodes));
          }
          case PEER_DOWN -> events.onPeerDown(b.readInt());
          case HELD_PUT -> heldPut(m.requestId(), b.readUTF(), readBytes(b));
          case HELD_GET -> heldGet(m.requestId(), b.readUTF(), b.readLong());
          case HEARTBEAT -> { }
          default -> throw new IOException("unknown coordinator op=" + m.op());
        }
      }
    } catch (IOException | RuntimeException e) {
      if (!closed) {
        lostCause = e;
        LOG.warn("coordinator {} lost: {}", where, e.toString());
        pending.values().forEach(f -> f.completeExceptionally(new FabricException("coordinator " + where + " lost: " + e)));
        events.onCoordinatorLost(e);
      }
    }
  }

  private void complete(long id, Object v) {
    CompletableFuture<Object> f = pending.get(id);
    if (f != null) {
      f.complete(v);
    }
  }

  /** @return true once the coordinator connection was lost */
  public boolean isLost() {
    return lostCause != null;
  }

  /** Says goodbye and closes the connection. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (lostCause == null) {
      send(BYE, 0, null);
    }
    heartbeat.shutdownNow();
    try {
      socket.close();
    } catch (IOException e) {
      LOG.debug("coordinator client close", e);
    }
  }
}
