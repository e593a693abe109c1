package io.github.verbs4j.tca.peach2;

import io.github.verbs4j.fabric.topo.Peach2Topology;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.Predicate;

/**
 * Two {@link DataLinkLayer}s (nodes 1 and 2, neighbours on a ring of two) over a wire the test
 * drives by hand: a fake clock both nodes read, a task queue run in time order, and every frame
 * either side transmits held in {@link #wire} until the test delivers, drops, corrupts or repeats
 * it. Delivered TLPs are recorded per receiving node as (source address, first data long).
 */
final class FakeWire implements AutoCloseable {
  /** A frame on the wire. */
  static final class Sent {
    final int src;
    final int dst;
    final boolean unchecked;
    final ByteBuf frame;

    Sent(int src, int dst, boolean unchecked, ByteBuf frame) {
      this.src = src;
      this.dst = dst;
      this.unchecked = unchecked;
      this.frame = frame;
    }

    boolean isDllp() {
      return LinkFrame.type(frame, frame.readerIndex()) == LinkFrame.TYPE_DLLP;
    }

    int seq() {
      return LinkFrame.seq(frame, frame.readerIndex());
    }
  }

  private record Task(long at, long order, Runnable run) {}

  final Peach2Topology topology = new Peach2Topology(1, 2, 30);
  final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
  final ArrayDeque<Sent> wire = new ArrayDeque<>();
  final Peach2Params params;
  final End[] ends = new End[3];
  private final PriorityQueue<Task> tasks = new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at)
      : Long.compare(a.order, b.order));
  private long order;
  volatile long now;
  volatile boolean mayCorrupt = true;
  /** False: the link says nothing can be lost (modelled time, no fault injection): no replay timer. */
  volatile boolean mayLose = true;
  volatile boolean canWait;
  private final boolean wallClock;
  /** While true, every frame transmitted is lost at once (a cut cable). */
  volatile boolean cut;

  /** One node: its fake link, counters, data link layer and what it received. */
  final class End implements Peach2Link {
    final int node;
    final Peach2Counters counters = new Peach2Counters(new SimpleMeterRegistry(), 0);
    final List<Long> received = new ArrayList<>();
    final DataLinkLayer dll;
    private Receiver receiver;
    private volatile boolean cables = true;
    private CableListener cableListener;

    End(int node) {
      this.node = node;
      this.dll = new DataLinkLayer(this, params, counters, (src, hops, tlp) -> {
        try {
          int off = tlp.readerIndex();
          received.add(Peach2Tlp.length(tlp, off) >= 8 ? tlp.getLong(off + Peach2Tlp.HEADER_LENGTH)
              : Peach2Tlp.address(tlp, off));
        } finally {
          tlp.release();
        }
      });
    }

    @Override
    public int nodeId() {
      return node;
    }

    @Override
    public Peach2Topology topology() {
      return topology;
    }

    @Override
    public HostClock clock() {
      return new HostClock() {
        @Override
        public long nowNanos() {
          return now;
        }

        @Override
        public void charge(long nanos) {
          now += nanos;
        }

        @Override
        public boolean isModelled() {
          return !wallClock;
        }
      };
    }

    @Override
    public HostScheduler scheduler() {
      return new HostScheduler() {
        @Override
        public Cancellable schedule(long delayNanos, Runnable task) {
          Task t;
          synchronized (FakeWire.this) {
            t = new Task(now + delayNanos, order++, task);
            tasks.add(t);
          }
          return () -> {
            synchronized (FakeWire.this) {
              tasks.remove(t); // a record: equal only to itself here (order is unique)
            }
          };
        }

        @Override
        public void execute(Runnable task) {
          schedule(0, task);
        }

        @Override
        public boolean inLinkThread() {
          return false;
        }

        @Override
        public boolean canWait() {
          return canWait;
        }
      };
    }

    @Override
    public ByteBufAllocator alloc() {
      return alloc;
    }

    @Override
    public boolean transmit(int dstNode, ByteBuf frame, boolean unchecked) {
      if (cut) {
        frame.release();
        return true;
      }
      synchronized (FakeWire.this) {
        wire.add(new Sent(node, dstNode, unchecked, frame));
      }
      return true;
    }

    @Override
    public boolean mayCorrupt() {
      return mayCorrupt;
    }

    @Override
    public boolean mayLose() {
      return mayLose;
    }

    @Override
    public boolean isWritable(int dstNode) {
      return true;
    }

    @Override
    public void setReceiver(Receiver receiver) {
      this.receiver = receiver;
    }

    /** Frames the data link layer rejected as not being link frames. */
    int rejected;

    @Override
    public void reject(ByteBuf frame) {
      rejected++;
      frame.release();
    }

    @Override
    public void addNodeListener(NodeListener listener) {}

    @Override
    public boolean cablesUp() {
      return cables;
    }

    @Override
    public void addCableListener(CableListener listener) {
      cableListener = listener;
    }

    @Override
    public void removeCableListener(CableListener listener) {
      cableListener = null;
    }

    /** Fault injection on this end's cables: the listener is told, as the link thread would. */
    void cables(boolean up) {
      cables = up;
      cableListener.onCablesChanged(up);
    }

    @Override
    public ManagementPort management() {
      return null;
    }

    @Override
    public void close() {}

    /**
     * Sends one TLP frame whose first data long is {@code value}.
     *
     * @return what the data link layer returned
     */
    boolean write(int dst, long value, int dataBytes) {
      ByteBuf f = alloc.directBuffer(LinkFrame.capacity(dataBytes));
      f.writerIndex(LinkFrame.BODY_OFFSET);
      Peach2Tlp.writeHeader(f, node, value, dataBytes);
      f.setZero(f.writerIndex(), dataBytes);
      if (dataBytes >= 8) {
        f.setLong(f.writerIndex(), value);
      }
      f.writerIndex(f.writerIndex() + dataBytes);
      Peach2Tlp.seal(f, LinkFrame.BODY_OFFSET, new java.util.zip.CRC32C(), true);
      return dll.transmit(dst, f, (int) Peach2Tlp.tlpCount(dataBytes, params.tlpPayloadBytes()));
    }

    long count(Peach2Counters.Link what) {
      return counters.link(what);
    }
  }

  FakeWire(DataLinkParams dl) {
    this(dl, false);
  }

  /**
   * @param dl the data link parameters
   * @param wallClock whether the nodes' clocks claim to be wall clocks (the fake time still moves
   *     only by hand)
   */
  FakeWire(DataLinkParams dl, boolean wallClock) {
    this.wallClock = wallClock;
    this.params = Peach2Params.defaults().toBuilder().dataLink(dl).build();
    ends[1] = new End(1);
    ends[2] = new End(2);
  }

  End end(int node) {
    return ends[node];
  }

  /** Delivers the oldest frame on the wire (at the current time). */
  void deliverOne() {
    Sent s;
    synchronized (this) {
      s = wire.poll();
    }
    ends[s.dst].receiver.onFrame(s.src, 1, s.unchecked, s.frame, Long.MIN_VALUE);
  }

  /** Drops the oldest frame on the wire. */
  void dropOne() {
    Sent s;
    synchronized (this) {
      s = wire.poll();
    }
    s.frame.release();
  }

  /**
   * Flips bits of a byte of the {@code k}th frame on the wire, in a copy (as the fabric does: the
   * sender's replay buffer shares the original's bytes).
   */
  synchronized void corrupt(int k, int byteOffset, int xor) {
    List<Sent> all = new ArrayList<>(wire);
    Sent s = all.get(k);
    ByteBuf copy = alloc.directBuffer(s.frame.readableBytes()).writeBytes(s.frame, s.frame.readerIndex(),
        s.frame.readableBytes());
    s.frame.release();
    copy.setByte(byteOffset, copy.getByte(byteOffset) ^ xor);
    all.set(k, new Sent(s.src, s.dst, s.unchecked, copy));
    wire.clear();
    wire.addAll(all);
  }

  /** Delivers every frame on the wire, including the ones sent meanwhile. */
  void deliverAll() {
    while (!wire.isEmpty()) {
      deliverOne();
    }
  }

  /**
   * Runs every task due up to {@code until} in time order (the clock moving to each), delivering
   * what is on the wire after each.
   */
  void runUntil(long until) {
    run(until, true);
  }

  /** Runs the tasks due up to {@code until} without delivering anything. */
  void runTasksUntil(long until) {
    run(until, false);
  }

  private void run(long until, boolean deliver) {
    if (deliver) {
      deliverAll();
    }
    while (true) {
      Task t;
      synchronized (this) {
        t = tasks.peek();
        if (t == null || t.at > until) {
          break;
        }
        tasks.poll();
      }
      now = Math.max(now, t.at);
      t.run.run();
      if (deliver) {
        deliverAll();
      }
    }
    now = Math.max(now, until);
  }

  /** @return the frames on the wire that match */
  synchronized List<Sent> onWire(Predicate<Sent> p) {
    return wire.stream().filter(p).toList();
  }

  @Override
  public void close() {
    for (int n = 1; n <= 2; n++) {
      ends[n].dll.close();
    }
    Sent s;
    while ((s = wire.poll()) != null) {
      s.frame.release();
    }
  }
}
