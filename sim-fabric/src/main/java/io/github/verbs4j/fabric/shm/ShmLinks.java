package io.github.verbs4j.fabric.shm;

import io.github.verbs4j.fabric.FabricException;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.FrameHeader;
import io.github.verbs4j.fabric.auth.PrivateDir;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A netty node's shared-memory links to the peers on its host ({@code verbs.fabric.shm}): one
 * inbound ring per node, which every peer on the host writes into (many-to-one, Agrona's {@link
 * ManyToOneRingBuffer} over a mapped file in {@code /dev/shm/verbs4j-<user>}, as Aeron IPC). A
 * frame is its 32-byte header and payload, copied into the ring by the sending thread itself (any
 * thread: the ring takes concurrent writers) and out of it by this node's poller thread, which waits
 * by {@code verbs.idle-strategy} and hands frames to the node's fabric thread in batches: one task
 * per batch, queued only when none is pending, so a busy receiver costs no system call per frame.
 *
 * <p>Peers find each other's rings through the job's key-value store ({@link #address()}); a peer is
 * linked when its boot id and host name are this host's and its ring maps. Which frames take a ring
 * and what happens to the others is the node's choice ({@link #send}).
 */
public final class ShmLinks implements AutoCloseable {
  /** What {@link #send} did. */
  public enum Result {
    /** In the destination's ring. */
    SENT,
    /** In the destination's ring, and its poller sleeps: ring its doorbell (a socket frame). */
    SENT_WAKE,
    /** The ring is full: nothing written (back-pressure). */
    FULL,
    /** No ring to that node, or the frame is larger than its ring takes: use the socket. */
    NOT_LINKED
  }

  private static final Logger LOG = LoggerFactory.getLogger(ShmLinks.class);
  private static final int MSG_TYPE = 1;
  private static final int INBOX = 4096;
  private static final int READ_LIMIT = 64;

  private final int self;
  private final Path file;
  private final ManyToOneRingBuffer own;
  private final UnsafeBuffer ownBell;
  private final String address;
  private final AtomicReferenceArray<ShmRing.Mapped> peers;
  private final Path[] peerFiles;
  /** Per peer: the position in its ring just past this node's last frame there (or beyond). */
  private final AtomicLongArray writtenTo;
  private final Executor loop;
  private final Consumer<ByteBuf> sink;
  private final ManyToOneConcurrentArrayQueue<ByteBuf> inbox = new ManyToOneConcurrentArrayQueue<>(INBOX);
  private final AtomicBoolean drainScheduled = new AtomicBoolean();
  private final Runnable drainTask = this::drain;
  private final Runnable doorbellTask = this::doorbell;
  /** Frames read per doorbell task before the loop's other work. */
  private static final int DOORBELL_BATCH = 16 * READ_LIMIT;
  private final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
  private final ThreadLocal<UnsafeBuffer> sendView = ThreadLocal.withInitial(() -> new UnsafeBuffer(new byte[0]));
  private final UnsafeBuffer readView = new UnsafeBuffer(new byte[0]); // whoever holds `reading`
  private final ControlledMessageHandler reader = this::onMessage;
  /** Held by whoever reads the ring (it has one consumer): the poller, or the fabric thread. */
  private final AtomicBoolean reading = new AtomicBoolean();
  private volatile long lastInlineNanos; // the fabric thread's last read of the ring
  /**
   * The poller leaves the ring to a fabric thread that read it this recently, ns: the fabric's
   * caller lease ({@code verbs.fabric.progress-lease-us}); while it holds, the poller looks again
   * only once per lease, so a polling caller is not interrupted by it.
   */
  private final long leaseNanos;
  /** The poller's longest sleep when no doorbell comes (a doorbell lost with its connection). */
  private static final long SLEEP_LIMIT_NANOS = 5_000_000;
  private final IdleStrategy idle;
  private final int sleepAfter; // idle rounds before the poller sleeps until a doorbell
  private final Thread poller;
  private volatile boolean running = true;
  private long taken; // frames taken out of the ring, by whoever holds `reading`

  /**
   * Creates this node's ring in the private directory and starts its poller.
   *
   * @param dir the private directory the ring file goes in
   * @param capacity ring data bytes, a power of two ({@link #capacityFor})
   * @param self this node's id
   * @param size the number of nodes
   * @param idle how the poller waits
   * @param leaseNanos how long after a polling caller's last read the poller stays out
   * @param loop the node's fabric thread, where {@code sink} runs
   * @param sink takes each received frame (header and payload) and owns it
   */
  public ShmLinks(Path dir, int capacity, int self, int size, String idleStrategy, long leaseNanos, Executor loop,
      Consumer<ByteBuf> sink) {
    this.self = self;
    this.leaseNanos = leaseNanos;
    this.loop = loop;
    this.sink = sink;
    this.idle = idleStrategy(idleStrategy);
    this.sleepAfter = sleepAfter(idleStrategy);
    this.peers = new AtomicReferenceArray<>(size + 1);
    this.peerFiles = new Path[size + 1];
    this.writtenTo = new AtomicLongArray(size + 1);
    this.file = dir.resolve("n-" + ProcessHandle.current().pid() + "-" + (self - 1) + "-"
        + Integer.toHexString(ThreadLocalRandom.current().nextInt()) + ".ring");
    ShmRing.Mapped m = ShmRing.create(file, capacity);
    this.own = m.ring();
    this.ownBell = m.bell();
    this.address = hostId() + "\n" + file;
    this.poller = new DefaultThreadFactory("verbs4j-shm-node" + self, true).newThread(this::poll);
    poller.start();
  }

  /**
   * Opens the links a node's options ask for.
   *
   * @param options the node's options
   * @param self this node's id
   * @param loop the node's fabric thread
   * @param sink takes each received frame
   * @return the links, or null with {@code verbs.fabric.shm=off}
   */
  public static ShmLinks open(FabricOptions options, int self, Executor loop, Consumer<ByteBuf> sink) {
    String mode = options.get(FabricOptions.SHM);
    if ("off".equals(mode)) {
      return null;
    }
    if (!available()) {
      if ("required".equals(mode)) {
        throw new FabricException("verbs.fabric.shm=required: Agrona cannot reach jdk.internal.misc.Unsafe in this JVM; "
            + "start it with --add-exports java.base/jdk.internal.misc=ALL-UNNAMED");
      }
      LOG.info("verbs.fabric.shm=auto: shared-memory rings off (start the JVM with --add-exports java.base/jdk.internal.misc=ALL-UNNAMED)");
      return null;
    }
    Path dir = directory(options);
    PrivateDir.cleanStale(dir);
    return new ShmLinks(dir, capacityFor(options.mtu()), self, options.size(), options.get(FabricOptions.IDLE_STRATEGY),
        TimeUnit.MICROSECONDS.toNanos(options.getLong(FabricOptions.PROGRESS_LEASE_US)), loop, sink);
  }

  /**
   * @param options the options
   * @return {@code /dev/shm/verbs4j-<user>} where {@code /dev/shm} exists, else the socket directory
   */
  public static Path directory(FabricOptions options) {
    return PrivateDir.of(Files.isDirectory(Path.of("/dev/shm")) ? "/dev/shm" : options.get(FabricOptions.UDS_DIR));
  }

  /**
   * @param mtu the fabric's largest payload
   * @return the ring capacity that takes whole frames of that size (at most 16 MiB)
   */
  public static int capacityFor(int mtu) {
    return ShmRing.capacityFor(mtu);
  }

  /**
   * @param name {@code verbs.idle-strategy}
   * @return the poller's busy wait before it sleeps: the spins and yields of verbs-api's {@code
   *     IdleStrategyKey}
   */
  static IdleStrategy idleStrategy(String name) {
    return switch (name) {
      case "spin" -> new BackoffIdleStrategy(Long.MAX_VALUE, 0, 1_000_000, 1_000_000);
      case "yield" -> new BackoffIdleStrategy(0, Long.MAX_VALUE, 1_000_000, 1_000_000);
      case "sleep" -> new BackoffIdleStrategy(0, 0, 1_000_000, 1_000_000);
      default -> new BackoffIdleStrategy(200, 50, 10_000, 1_000_000);
    };
  }


  /**
   * @param name {@code verbs.idle-strategy}
   * @return idle rounds after which the poller sleeps until a doorbell: never for {@code spin} and
   *     {@code yield} (they poll), at once otherwise. A frame to an idle node then wakes its fabric
   *     thread directly (one socket wake-up, as a socket frame) instead of the poller, which would
   *     hand it to that thread (two); measured in docs/benchmarks.md
   */
  static int sleepAfter(String name) {
    return switch (name) {
      case "spin", "yield" -> Integer.MAX_VALUE;
      default -> 1;
    };
  }

  /** @return whether Agrona's buffers work in this JVM (they need {@code jdk.internal.misc} exported) */
  public static boolean available() {
    try {
      return new UnsafeBuffer(new byte[8]).getLong(0) == 0;
    } catch (LinkageError e) {
      return false;
    }
  }

  /** @return what peers need to link to this node: host identity and ring file */
  public String address() {
    return address;
  }

  /** @return this node's ring file */
  public Path file() {
    return file;
  }

  /**
   * Links to a peer's ring if it is on this host.
   *
   * @param node the peer
   * @param peerAddress its {@link #address()}
   * @return whether frames to it now go through its ring
   */
  public boolean attach(int node, String peerAddress) {
    int nl = peerAddress.lastIndexOf('\n');
    String host = hostId();
    if (nl < 0 || "/".equals(host) || !peerAddress.substring(0, nl).equals(host)) {
      return false;
    }
    Path f = Path.of(peerAddress.substring(nl + 1));
    ShmRing.Mapped r = ShmRing.map(f);
    if (r == null) {
      return false;
    }
    peerFiles[node] = f;
    peers.set(node, r);
    return true;
  }

  /**
   * @param node a node
   * @return whether frames to it go through its ring
   */
  public boolean linked(int node) {
    return node > 0 && node < peers.length() && peers.get(node) != null;
  }

  /**
   * @param node a node
   * @param payloadBytes a frame's payload length
   * @return whether a frame of that size to it goes through its ring
   */
  public boolean fits(int node, int payloadBytes) {
    ShmRing.Mapped r = node > 0 && node < peers.length() ? peers.get(node) : null;
    return r != null && FrameHeader.LENGTH + payloadBytes <= r.ring().maxMsgLength();
  }

  /**
   * Any thread: writes one frame into {@code node}'s ring. Does not take ownership of {@code payload}.
   *
   * @return {@link Result#SENT}, {@link Result#SENT_WAKE} (the caller rings the peer's doorbell),
   *     {@link Result#FULL} or {@link Result#NOT_LINKED}
   */
  public Result send(int node, int type, int flags, int hops, int src, int dst, int tag, ByteBuf payload, long sendTime,
      long arrival) {
    ShmRing.Mapped m = node < peers.length() ? peers.get(node) : null;
    int len = payload.readableBytes();
    if (m == null || FrameHeader.LENGTH + len > m.ring().maxMsgLength()) {
      return Result.NOT_LINKED;
    }
    ManyToOneRingBuffer r = m.ring();
    int at = r.tryClaim(MSG_TYPE, FrameHeader.LENGTH + len);
    if (at < 0) {
      return Result.FULL;
    }
    AtomicBuffer b = r.buffer();
    try {
      b.putByte(at + FrameHeader.VERSION_OFFSET, (byte) FrameHeader.VERSION);
      b.putByte(at + FrameHeader.TYPE_OFFSET, (byte) type);
      b.putByte(at + FrameHeader.FLAGS_OFFSET, (byte) flags);
      b.putByte(at + FrameHeader.HOPS_OFFSET, (byte) hops);
      b.putShort(at + FrameHeader.SRC_OFFSET, (short) src, ByteOrder.BIG_ENDIAN);
      b.putShort(at + FrameHeader.DST_OFFSET, (short) dst, ByteOrder.BIG_ENDIAN);
      b.putShort(at + FrameHeader.TAG_OFFSET, (short) tag, ByteOrder.BIG_ENDIAN);
      b.putShort(at + FrameHeader.RESERVED_OFFSET, (short) 0);
      b.putInt(at + FrameHeader.LENGTH_OFFSET, len, ByteOrder.BIG_ENDIAN);
      b.putLong(at + FrameHeader.SEND_TIME_OFFSET, sendTime, ByteOrder.BIG_ENDIAN);
      b.putLong(at + FrameHeader.ARRIVAL_TIME_OFFSET, arrival, ByteOrder.BIG_ENDIAN);
      copyIn(b, at + FrameHeader.LENGTH, payload, len);
    } catch (RuntimeException e) {
      r.abort(at);
      throw e;
    }
    r.commit(at);
    writtenTo.accumulateAndGet(node, r.producerPosition(), Math::max);
    // The frame is visible before the doorbell word is read (the poller sets the word, then looks
    // at the ring): whichever comes second sees the other, so no frame waits for a sleeping poller.
    VarHandle.fullFence();
    UnsafeBuffer bell = m.bell();
    if (bell.getIntVolatile(ShmRing.SLEEPING) == 1 && bell.compareAndSetInt(ShmRing.SLEEPING, 1, 0)) {
      return Result.SENT_WAKE;
    }
    return Result.SENT;
  }

  private void copyIn(AtomicBuffer b, int at, ByteBuf payload, int len) {
    if (len == 0) {
      return;
    }
    int from = payload.readerIndex();
    if (payload.hasMemoryAddress()) {
      UnsafeBuffer v = sendView.get();
      v.wrap(payload.memoryAddress() + from, len);
      b.putBytes(at, v, 0, len);
    } else if (payload.hasArray()) {
      b.putBytes(at, payload.array(), payload.arrayOffset() + from, len);
    } else {
      int off = at;
      for (ByteBuffer bb : payload.nioBuffers(from, len)) {
        int n = bb.remaining();
        b.putBytes(off, bb, bb.position(), n);
        off += n;
      }
    }
  }

  /**
   * Bytes of {@code node}'s ring, up to this node's last frame in it, that its reader has not taken
   * yet: while there are any, that frame has not reached the peer (its host has not run its
   * receive path since), as a frame in a socket buffer has not. Frames of other writers ahead of
   * this node's count too: they are read first.
   *
   * @param node a peer
   * @return the bytes; 0 if the peer is not linked (or went down)
   */
  public long unread(int node) {
    ShmRing.Mapped m = node > 0 && node < peers.length() ? peers.get(node) : null;
    if (m == null) {
      return 0;
    }
    return Math.max(0, writtenTo.get(node) - m.ring().consumerPosition());
  }

  /**
   * @return whether every frame that reached this node's ring has been handed on (the ring and the
   *     queue to the fabric thread are empty)
   */
  public boolean drained() {
    return own.size() == 0 && inbox.isEmpty();
  }

  /**
   * The engine above has taken every frame it was handed (any thread): if the ring and the queue to
   * the fabric thread are empty too, peers may read that this node was caught up now ({@link
   * #peerCaughtUp}). The time and the count of frames taken out of the ring are read first, so
   * every frame they cover has been taken.
   */
  public void caughtUp() {
    long t = System.nanoTime();
    long n = ownBell.getLongVolatile(ShmRing.TAKEN);
    if (drained()) {
      ownBell.putLongOrdered(ShmRing.CAUGHT_UP_TAKEN, n);
      ownBell.putLongOrdered(ShmRing.CAUGHT_UP, t);
    }
  }

  /**
   * @param node a peer
   * @return {@link System#nanoTime()} when its engine last had taken everything that reached it (0:
   *     never): now if its ring is empty and it has taken nothing since it was last caught up (an
   *     idle peer has nothing to catch up on, and a frame lost on the way never reached it), or
   *     {@link Long#MAX_VALUE} if it is not linked
   */
  public long peerCaughtUp(int node) {
    ShmRing.Mapped m = node > 0 && node < peers.length() ? peers.get(node) : null;
    if (m == null) {
      return Long.MAX_VALUE;
    }
    long now = System.nanoTime();
    UnsafeBuffer bell = m.bell();
    if (m.ring().size() == 0 && bell.getLongVolatile(ShmRing.TAKEN) == bell.getLongVolatile(ShmRing.CAUGHT_UP_TAKEN)) {
      return now;
    }
    return bell.getLongVolatile(ShmRing.CAUGHT_UP);
  }

  /**
   * @param node a peer
   * @return how far its reader has read its ring (a position that only grows while it runs), or
   *     {@link Long#MAX_VALUE} if it is not linked
   */
  public long peerRead(int node) {
    ShmRing.Mapped m = node > 0 && node < peers.length() ? peers.get(node) : null;
    return m == null ? Long.MAX_VALUE : m.ring().consumerPosition();
  }

  /**
   * @param node a linked peer
   * @return whether its ring is less than half full
   */
  public boolean isWritable(int node) {
    ShmRing.Mapped m = peers.get(node);
    return m != null && m.ring().size() < m.ring().capacity() / 2;
  }

  /**
   * A peer is gone: frames to it no longer go through its ring, and its file (which a killed
   * process could not delete) is deleted.
   *
   * @param node the peer
   */
  public void peerDown(int node) {
    if (node <= 0 || node >= peers.length()) {
      return;
    }
    peers.set(node, null);
    Path f = peerFiles[node];
    if (f != null) {
      delete(f);
    }
  }

  /**
   * Fabric thread: reads the ring itself (a caller polling the fabric, {@code
   * verbs.fabric.progress=caller}) and hands the frames to the sink at once, after what the poller
   * queued before; the poller stays out while the fabric thread keeps reading.
   *
   * @return frames handed to the sink
   */
  public int pollInline() {
    lastInlineNanos = System.nanoTime();
    return readInline();
  }

  /**
   * The polling callers left (they park between empty polls, or block): the poller takes the ring
   * back now instead of after the lease. Any thread.
   */
  public void endInline() {
    lastInlineNanos = System.nanoTime() - leaseNanos - 1;
    LockSupport.unpark(poller);
  }

  /**
   * Fabric thread: what the poller queued, then the ring, to the sink. The ring's frames go through
   * the queue too, so that the ring's head has moved past them before the sink runs: an engine that
   * reports itself caught up from inside the sink must find the ring empty ({@link #caughtUp}).
   */
  private int readInline() {
    if (!reading.compareAndSet(false, true)) {
      return 0;
    }
    try {
      int n = handOn(); // queued by the poller before: they go first
      own.controlledRead(reader, READ_LIMIT);
      return n + handOn();
    } finally {
      reading.set(false);
    }
  }

  private int handOn() {
    int n = 0;
    ByteBuf f;
    while ((f = inbox.poll()) != null) {
      n++;
      sink.accept(f);
    }
    return n;
  }

  /**
   * Fabric thread: this node's doorbell rang (a socket frame): a sender wrote into the ring while
   * the poller slept. Reads the ring now; the poller sleeps on, and the doorbell word is set again
   * so that the next frame rings too (unless a polling caller reads the ring, which needs none).
   * Frames that follow within the read need no doorbell: their senders found the word clear.
   */
  public void doorbell() {
    // Frames written while this reads need no doorbell (their senders found the word clear); after
    // a batch the loop does its other work first.
    int total = 0;
    int n;
    while ((n = readInline()) > 0) {
      total += n;
      if (total >= DOORBELL_BATCH) {
        reschedule();
        return;
      }
    }
    if (System.nanoTime() - lastInlineNanos <= leaseNanos) {
      return; // a polling caller reads the ring: no doorbell needed
    }
    ownBell.putIntVolatile(ShmRing.SLEEPING, 1);
    if (own.size() > 0 && ownBell.compareAndSetInt(ShmRing.SLEEPING, 1, 0)) {
      reschedule(); // committed before the word was set: its sender did not ring
    }
  }

  private void reschedule() {
    try {
      loop.execute(doorbellTask);
    } catch (RejectedExecutionException closed) {
      // the node is closing
    }
  }

  /**
   * The poller: reads the ring and hands frames to the fabric thread; idle, it spins and yields by
   * the idle strategy, then sleeps with the doorbell word set until a sender rings (or {@link
   * #SLEEP_LIMIT_NANOS}). While a polling caller reads the ring itself it stays out.
   */
  private void poll() {
    int idleRounds = 0;
    while (running) {
      int n = 0;
      boolean leased = System.nanoTime() - lastInlineNanos <= leaseNanos;
      if (!leased && reading.compareAndSet(false, true)) {
        try {
          n = own.controlledRead(reader, READ_LIMIT);
        } finally {
          reading.set(false);
        }
      }
      if (n > 0) {
        idleRounds = 0;
        if (drainScheduled.compareAndSet(false, true)) {
          try {
            loop.execute(drainTask);
          } catch (RejectedExecutionException closed) {
            return;
          }
        }
        idle.idle(n);
      } else if (leased) {
        LockSupport.parkNanos(leaseNanos); // the caller reads; no doorbell needed
      } else if (++idleRounds < sleepAfter) {
        idle.idle(0);
      } else {
        sleepUntilDoorbell();
        idleRounds = 0;
        idle.reset();
      }
    }
  }

  /** @return whether the poller sleeps until a doorbell (its word is set); for tests */
  boolean sleeping() {
    return ownBell.getIntVolatile(ShmRing.SLEEPING) == 1;
  }

  private void sleepUntilDoorbell() {
    ownBell.putIntVolatile(ShmRing.SLEEPING, 1);
    if (own.size() == 0 && running) { // a frame committed before the word was set is read now
      LockSupport.parkNanos(this, SLEEP_LIMIT_NANOS);
    }
    ownBell.putIntVolatile(ShmRing.SLEEPING, 0);
  }

  private ControlledMessageHandler.Action onMessage(int type, MutableDirectBuffer buffer, int index, int length) {
    if (inbox.remainingCapacity() == 0) {
      return ControlledMessageHandler.Action.ABORT; // the fabric thread is behind: leave it in the ring
    }
    inbox.offer(copy(buffer, index, length));
    tookOne();
    return ControlledMessageHandler.Action.CONTINUE;
  }

  /** Copies a frame out of the ring (whoever holds {@link #reading}). */
  private ByteBuf copy(MutableDirectBuffer buffer, int index, int length) {
    ByteBuf f = alloc.directBuffer(length, length);
    if (f.hasMemoryAddress()) {
      UnsafeBuffer v = readView;
      v.wrap(f.memoryAddress(), length);
      buffer.getBytes(index, v, 0, length);
      f.writerIndex(length);
    } else {
      byte[] tmp = new byte[length];
      buffer.getBytes(index, tmp);
      f.writeBytes(tmp);
    }
    return f;
  }

  /** A frame left the ring, before the ring's head moves past it (whoever holds {@link #reading}). */
  private void tookOne() {
    ownBell.putLongOrdered(ShmRing.TAKEN, ++taken);
  }

  /** Fabric thread: hands the received frames to the sink. */
  private void drain() {
    drainScheduled.set(false); // before polling: a frame queued from now on schedules another drain
    ByteBuf f;
    int n = 0;
    while (n < INBOX && (f = inbox.poll()) != null) {
      n++;
      sink.accept(f);
    }
    if (!inbox.isEmpty() && drainScheduled.compareAndSet(false, true)) {
      loop.execute(drainTask);
    }
  }

  /** Stops the poller, deletes this node's ring file and drops what was not delivered. */
  @Override
  public void close() {
    running = false;
    LockSupport.unpark(poller);
    try {
      poller.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    delete(file);
    for (int i = 0; i < peers.length(); i++) {
      peers.set(i, null);
    }
    ByteBuf f;
    while ((f = inbox.poll()) != null) {
      f.release();
    }
  }

  private static void delete(Path f) {
    try {
      Files.deleteIfExists(f);
    } catch (IOException e) {
      // gone or not ours: the next start's stale sweep takes it
    }
  }

  /** This host's identity: its boot id (a reboot or another machine differs) and host name. */
  static String hostId() {
    return read("/proc/sys/kernel/random/boot_id") + "/" + read("/proc/sys/kernel/hostname");
  }

  private static String read(String f) {
    try {
      return Files.readString(Path.of(f), StandardCharsets.US_ASCII).trim();
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }

  @Override
  public String toString() {
    return "ShmLinks{node=" + self + ", ring=" + file + "}";
  }
}
