package io.github.verbs4j.ib;

import io.github.verbs4j.ib.engine.PacketPort;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A port for engine tests: a fake clock the test advances, timers that run when it does, every
 * transmitted packet captured (not delivered) with the batch (duty cycle) it was sent in — the
 * packets of one batch to one destination would share a frame on the fabric — and {@link #inject}
 * to hand the device a crafted packet as if it came from the wire.
 */
final class CapturePort implements PacketPort {
  private final int lid;
  private long now = 1_000_000;
  private Receiver receiver;
  final List<ByteBuf> sent = new ArrayList<>();
  private final List<Integer> sentBatch = new ArrayList<>();
  private int batch;
  private Runnable callersIdle;
  private final List<long[]> timerTimes = new ArrayList<>();
  private final List<Runnable> timerTasks = new ArrayList<>();

  CapturePort(int lid) {
    this.lid = lid;
  }

  @Override
  public int localLid() {
    return lid;
  }

  /** What {@link #mayCorrupt()} answers; a test sets it. */
  volatile boolean mayCorrupt = true;

  @Override
  public boolean mayCorrupt() {
    return mayCorrupt;
  }

  @Override
  public ByteBufAllocator alloc() {
    return PooledByteBufAllocator.DEFAULT;
  }

  /** The thread that transmitted each packet in {@link #sent}. */
  final List<Thread> sentBy = new ArrayList<>();
  /** Calls of {@link #progress(java.util.function.IntSupplier, boolean)}, and how many asked to poll the wire. */
  final java.util.concurrent.atomic.AtomicInteger progressCalls = new java.util.concurrent.atomic.AtomicInteger();
  final java.util.concurrent.atomic.AtomicInteger wirePolls = new java.util.concurrent.atomic.AtomicInteger();

  @Override
  public int progress(java.util.function.IntSupplier work, boolean pollWire) {
    progressCalls.incrementAndGet();
    if (pollWire) {
      wirePolls.incrementAndGet();
    }
    return work.getAsInt();
  }

  @Override
  public synchronized boolean transmit(int dlid, ByteBuf packet) {
    sentBy.add(Thread.currentThread());
    sent.add(packet);
    sentBatch.add(batch);
    return true;
  }

  @Override
  public synchronized void endBatch() {
    batch++;
  }

  @Override
  public boolean onCallersIdle(Runnable task) {
    callersIdle = task;
    return true;
  }

  /** As if the wire's thread took over from callers that stopped calling. */
  void callersIdle() {
    if (callersIdle != null) {
      callersIdle.run();
    }
  }

  @Override
  public boolean isWritable(int dlid) {
    return true;
  }

  /** What {@link #unsentBytes} answers for every destination; a test sets it. */
  volatile long unsent;

  @Override
  public long unsentBytes(int dlid) {
    return unsent;
  }

  /** What {@link #receiveDrained} answers; a test clears it to hold frames in "the fabric". */
  volatile boolean drained = true;
  /** What {@link #peerReadMark} answers for every destination. */
  volatile long peerRead = Long.MAX_VALUE;
  /** What {@link #peerCaughtUpNanos} answers for every destination. */
  volatile long peerCaughtUp = Long.MAX_VALUE;
  /** How often the engine said it had taken everything ({@link #caughtUp}). */
  final java.util.concurrent.atomic.AtomicInteger caughtUps = new java.util.concurrent.atomic.AtomicInteger();

  @Override
  public boolean receiveDrained() {
    return drained;
  }

  @Override
  public long peerReadMark(int dlid) {
    return peerRead;
  }

  @Override
  public long peerCaughtUpNanos(int dlid) {
    return peerCaughtUp;
  }

  @Override
  public void receiverCaughtUp() {
    caughtUps.incrementAndGet();
  }

  @Override
  public synchronized long nowNanos() {
    return now;
  }

  @Override
  public boolean modelledTime() {
    return false;
  }

  @Override
  public void charge(long nanos) {}

  @Override
  public long chargeTransmit(long nanos, long readyAt, boolean answer) {
    return 0;
  }

  @Override
  public synchronized Timer schedule(long delayNanos, Runnable task) {
    long[] at = {now + delayNanos};
    timerTimes.add(at);
    timerTasks.add(task);
    return () -> {
      synchronized (CapturePort.this) {
        int i = timerTimes.indexOf(at);
        if (i < 0) {
          return false;
        }
        timerTimes.remove(i);
        timerTasks.remove(i);
        return true;
      }
    };
  }

  @Override
  public void bind(Receiver r) {
    this.receiver = r;
  }

  @Override
  public void close() {
    takeAll().forEach(ByteBuf::release);
  }

  /** Advances the clock by {@code nanos} and runs the timers that came due. */
  void advance(long nanos) {
    List<Runnable> due = new ArrayList<>();
    synchronized (this) {
      now += nanos;
      Iterator<long[]> t = timerTimes.iterator();
      Iterator<Runnable> r = timerTasks.iterator();
      while (t.hasNext()) {
        long[] at = t.next();
        Runnable task = r.next();
        if (now - at[0] >= 0) {
          t.remove();
          r.remove();
          due.add(task);
        }
      }
    }
    due.forEach(Runnable::run);
  }

  /** Delivers a packet (the device releases it). */
  void inject(int slid, ByteBuf packet) {
    receiver.onPacket(slid, packet, Long.MIN_VALUE);
  }

  /** @return and forget every packet sent so far (the caller releases them) */
  synchronized List<ByteBuf> takeAll() {
    List<ByteBuf> l = new ArrayList<>(sent);
    sent.clear();
    sentBatch.clear();
    sentBy.clear();
    return l;
  }

  /** @return and forget every packet sent so far, grouped by the batch they were sent in */
  synchronized List<List<ByteBuf>> takeBatches() {
    List<List<ByteBuf>> l = new ArrayList<>();
    int last = Integer.MIN_VALUE;
    for (int i = 0; i < sent.size(); i++) {
      if (sentBatch.get(i) != last) {
        l.add(new ArrayList<>());
        last = sentBatch.get(i);
      }
      l.get(l.size() - 1).add(sent.get(i));
    }
    sent.clear();
    sentBatch.clear();
    sentBy.clear();
    return l;
  }
}
