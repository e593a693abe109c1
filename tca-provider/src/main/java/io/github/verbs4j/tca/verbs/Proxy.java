package io.github.verbs4j.tca.verbs;

import io.github.verbs4j.tca.peach2.Peach2Board;
import io.netty.util.collection.IntObjectHashMap;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The context's progress thread, which always runs (seed 000 §3.3: the software proxy). It polls
 * the receive rings of every peer, hands each packet to its QP's {@link Responder} or {@link
 * Requester}, starts posted work, runs the timers, sends coalesced ACKs and moves queued packets as
 * credits allow. When idle it parks until the next timer; a write landing in this node's memory
 * (the board's write hook) or a post wakes it.
 *
 * <p>All engine state of the context's QPs is touched here under each QP's monitor; the channels
 * are touched only by this thread.
 */
final class Proxy implements Channel.Sink, Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(Proxy.class);
  private static final long MAX_PARK_NS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final int POLL_BUDGET = 256;

  private final TcaContext ctx;
  private final Peach2Board board;
  private final Channel[] channels;
  private final ConcurrentHashMap<Integer, TcaQueuePair> qps = new ConcurrentHashMap<>();
  /** Copies for the proxy thread, replaced on attach/detach: lookups and iteration allocate nothing. */
  private volatile TcaQueuePair[] qpArray = new TcaQueuePair[0];
  private volatile IntObjectHashMap<TcaQueuePair> byQpn = new IntObjectHashMap<>();
  private final List<TcaQueuePair> acks = new ArrayList<>();
  private final Packet header = new Packet();
  private final ByteBuffer scratch = ByteBuffer.allocateDirect(Layout.HB_BYTES).order(ByteOrder.LITTLE_ENDIAN);
  private final Thread thread;
  private volatile boolean running = true;
  private volatile boolean woken;
  private long now;

  Proxy(TcaContext ctx, Peach2Board board, ByteBuffer areas, int llMax) {
    this.ctx = ctx;
    this.board = board;
    int n = board.window().nodes();
    this.channels = new Channel[n + 1];
    for (int p = 1; p <= n; p++) {
      channels[p] = new Channel(board, p, areas, (p - 1) * Layout.AREA, llMax);
    }
    this.thread = new Thread(this, "tca-proxy-" + board.nodeId());
    thread.setDaemon(true);
  }

  void start() {
    board.setWriteHook(this::wake);
    thread.start();
  }

  /** Wakes the thread (a post, a modify, a landed write). Any thread. */
  void wake() {
    woken = true;
    LockSupport.unpark(thread);
  }

  /** @return whether the caller is the proxy thread */
  boolean inProxy() {
    return Thread.currentThread() == thread;
  }

  synchronized void attach(TcaQueuePair qp) {
    qps.put(qp.qpNum(), qp);
    publish();
  }

  synchronized void detach(TcaQueuePair qp) {
    qps.remove(qp.qpNum(), qp);
    publish();
  }

  private void publish() {
    IntObjectHashMap<TcaQueuePair> m = new IntObjectHashMap<>(Math.max(8, qps.size() * 2));
    for (TcaQueuePair q : qps.values()) {
      m.put(q.qpNum(), q);
    }
    byQpn = m;
    qpArray = qps.values().toArray(new TcaQueuePair[0]);
  }

  /**
   * @param node a node id (a LID)
   * @return the channel to it, or null if no such node exists in the sub-cluster
   */
  Channel channel(int node) {
    return node >= 1 && node < channels.length ? channels[node] : null;
  }

  /** A responder has an ACK to send after this round. */
  void ackLater(TcaQueuePair qp) {
    acks.add(qp);
  }

  /** @return the direct scratch buffer payloads are read into (proxy thread only) */
  ByteBuffer scratch() {
    return scratch;
  }

  @Override
  public void run() {
    while (running) {
      boolean work;
      try {
        work = cycle();
      } catch (RuntimeException | Error e) {
        LOG.error("tca proxy of node {} failed; the context can no longer move data", board.nodeId(), e);
        running = false;
        return;
      }
      if (!work) {
        idle();
      }
    }
  }

  private boolean cycle() {
    woken = false;
    now = System.nanoTime();
    boolean work = false;
    for (int p = 1; p < channels.length; p++) {
      int n = channels[p].poll(header, scratch, this, POLL_BUDGET);
      if (n > 0) {
        ctx.counters().packetsReceived(n);
        work = true;
      }
    }
    for (int i = 0; i < acks.size(); i++) {
      TcaQueuePair qp = acks.get(i);
      synchronized (qp) {
        // also when the QP was destroyed or reset meanwhile: the messages it acknowledges were delivered
        qp.responder.flushAck();
      }
    }
    acks.clear();
    for (TcaQueuePair qp : qpArray) {
      synchronized (qp) {
        if (!qp.destroyed) {
          work |= qp.requester.progress(now);
        }
      }
    }
    for (int p = 1; p < channels.length; p++) {
      Channel ch = channels[p];
      if (ch.hasQueued()) {
        int n = ch.flush();
        ctx.counters().packetsSent(n);
        work |= n > 0;
      }
    }
    return work;
  }

  private void idle() {
    long deadline = now + MAX_PARK_NS;
    for (TcaQueuePair qp : qpArray) {
      synchronized (qp) {
        deadline = Math.min(deadline, qp.requester.nextDeadline());
      }
    }
    for (int p = 1; p < channels.length; p++) {
      if (channels[p].hasQueued()) {
        deadline = Math.min(deadline, now + 20_000); // waiting for credits: look again soon
      }
    }
    long wait = deadline - System.nanoTime();
    if (wait > 0 && !woken && running) {
      LockSupport.parkNanos(this, wait);
    }
  }

  @Override
  public void onPacket(Channel ch, Packet p, ByteBuffer payload) {
    if (LOG.isTraceEnabled()) {
      LOG.trace("node {} rx from {}: {}", board.nodeId(), ch.peer, p);
    }
    TcaQueuePair qp = byQpn.get(p.dstQpn);
    if (qp == null) {
      ctx.counters().dropped(1);
      return;
    }
    synchronized (qp) {
      if (qp.destroyed) {
        ctx.counters().dropped(1);
      } else if (p.isRequest()) {
        qp.responder.onRequest(ch, p, payload);
      } else {
        qp.requester.onResponse(ch, p, payload, now);
      }
    }
  }

  /** Stops the thread and returns the channels' pool memory. */
  void close() {
    running = false;
    LockSupport.unpark(thread);
    board.setWriteHook(null);
    try {
      thread.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (int p = 1; p < channels.length; p++) {
      channels[p].release();
    }
  }
}
