package io.github.verbs4j.examples.mp;

import static io.github.verbs4j.examples.mp.Connections.WR_CONTROL_RECV;
import static io.github.verbs4j.examples.mp.Connections.WR_CONTROL_SEND;
import static io.github.verbs4j.examples.mp.Connections.WR_RDMA;
import static io.github.verbs4j.examples.mp.Connections.WR_RECV;
import static io.github.verbs4j.examples.mp.Connections.WR_SEND;
import static io.github.verbs4j.examples.mp.Connections.WR_SHARED_RECV;

import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Job;
import io.github.verbs4j.verbs.MemoryKind;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.Verbs;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.config.VerbsConfig;
import io.github.verbs4j.verbs.spi.runtime.HostShare;
import io.github.verbs4j.verbs.spi.runtime.IdleStrategyKey;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The communicator on verbs: one RC queue pair to every other rank, connected through the job's
 * key-value store, and one completion queue that the calling thread polls whenever it waits.
 *
 * <p><b>Eager</b> (up to {@link MpConfig#eagerLimit()} bytes): the message and a {@link Wire}
 * header are copied into a registered send slot and SENT into one of the {@link MpConfig#slots()}
 * receive slots the peer keeps posted; the receiver copies the payload into the matching receive's
 * buffer (or keeps a copy until one is posted) and reposts the slot at once. A send completes as
 * soon as its data is copied. Flow control is by credits: a sender has one credit per free
 * receive slot at the peer (minus a few reserved for credit messages); receivers return credits in
 * the header of every message they send, or in a CREDIT message once half the window is owed, so
 * a slot is never overrun (the QPs still retry RNR forever as a safety net).
 *
 * <p><b>Rendezvous</b> (longer messages): the sender announces the message (RTS). With {@link
 * MpConfig.Rendezvous#WRITE} the receiver, once a receive matches, answers with its buffer's address
 * and rkey (CTS), the sender RDMA-WRITEs the data there and sends FIN behind it on the same QP, and
 * the receive completes on FIN. With {@link MpConfig.Rendezvous#READ} the RTS carries the sender's
 * address and rkey, the receiver RDMA-READs the data and sends FIN so the sender may reuse its
 * buffer. Buffers from {@link #allocate(int)} are used in place; other buffers go through a
 * temporary registered bounce buffer.
 *
 * <p><b>Waiting</b>: a wait polls the CQ (which also drives the provider), spinning and yielding
 * in between by the runtime's {@code verbs.idle-strategy}, then blocks on the CQ's completion
 * channel until the next completion ({@link CompletionWait}). The resources and their wiring are
 * {@link Connections}.
 *
 * <p><b>Connections</b> ({@link MpConfig#strategy()}): {@link MpConfig.Strategy#BASELINE} connects
 * every pair at start; {@link MpConfig.Strategy#ON_DEMAND} opens a peer's QP and ring when there is
 * something to send to it and keeps at most γ open ({@link ConnectionManager}); {@link
 * MpConfig.Strategy#DC} sends on DC; {@link MpConfig.Strategy#HYBRID} moves heavy sources from DC to
 * RC ({@link HybridSwitch}). A message waits in
 * its peer's queue while the peer has no open link, and goes on the next one.
 *
 * <p>Not thread-safe; one thread drives it.
 */
public final class VerbsCommunicator extends AbstractCommunicator {
  private static final Logger LOG = LoggerFactory.getLogger(VerbsCommunicator.class);
  private static final int POLL_BATCH = 32;
  /** How long close waits for its last sends to complete. */
  private static final Duration QUIESCE = Duration.ofSeconds(5);

  private final Context ctx;
  private final boolean ownsContext;
  private final MpConfig config;
  private final Connections conn;
  private final CompletionWait waiter;
  private final ProtectionDomain pd;
  private final CompletionQueue cq;
  /** On-demand connections; null for the baseline. */
  private final ConnectionManager cm;
  /** The hybrid's switching from DC to RC; null for other strategies. */
  private final HybridSwitch hybrid;
  private final int slots;
  private final int slotSize;
  private final Sender sender;
  /** {@link #peer} as a function, made once rather than per control completion. */
  private final IntFunction<Peer> peerOf = this::peer;
  private final AppTimeline timeline;
  private final PeerTable peers;
  private final Matcher matcher = new Matcher();
  private final Rendezvous rendezvous;
  private final Regions regions;
  private final WorkCompletion[] wcs = WorkCompletion.array(POLL_BATCH);
  private boolean closed;
  private boolean closing;
  private MpException broken;

  /**
   * Opens the configured device and a communicator over all ranks of its job; closing the
   * communicator closes the device.
   *
   * @param config the settings
   * @return the communicator
   */
  public static VerbsCommunicator open(MpConfig config) {
    Context ctx = Verbs.open();
    try {
      return create(ctx, true, config, IdleStrategyKey.of(VerbsConfig.load()), CompletionWait.MAX_BLOCK);
    } catch (RuntimeException e) {
      try {
        ctx.close();
      } catch (RuntimeException c) {
        e.addSuppressed(c);
      }
      throw e;
    }
  }

  /**
   * A communicator over all ranks of {@code ctx}'s job. Every rank must call this, in the same
   * order as its other communicators.
   *
   * @param ctx the device (stays open after the communicator closes)
   * @param config the settings
   * @return the communicator
   */
  public static VerbsCommunicator open(Context ctx, MpConfig config) {
    return create(ctx, false, config, IdleStrategyKey.of(VerbsConfig.load()), CompletionWait.MAX_BLOCK);
  }

  /**
   * {@link #open(Context, MpConfig)} for a rank that shares the host's processors with the other
   * ranks {@code host} counts (e.g. ranks as threads of one JVM): when they oversubscribe them, a
   * wait blocks at once instead of spinning (by {@code verbs.idle-strategy}), and for longer
   * between safety wake-ups ({@link CompletionWait#maxBlock}).
   *
   * @param ctx the device (stays open after the communicator closes)
   * @param config the settings
   * @param host the ranks on this host and its processors
   * @return the communicator
   */
  public static VerbsCommunicator open(Context ctx, MpConfig config, HostShare host) {
    return create(ctx, false, config, IdleStrategyKey.of(VerbsConfig.load(), host), CompletionWait.maxBlock(host));
  }

  /**
   * {@link #open(Context, MpConfig)} with explicit idle numbers instead of {@code verbs.idle-strategy}'s.
   *
   * @param ctx the device
   * @param config the settings
   * @param idle spins and yields before a wait blocks on the completion channel
   * @param block longest single block ({@link CompletionWait#MAX_BLOCK} normally)
   * @return the communicator
   */
  static VerbsCommunicator open(Context ctx, MpConfig config, IdleStrategyKey.Backoff idle, Duration block) {
    return create(ctx, false, config, idle, block);
  }

  private static VerbsCommunicator create(Context ctx, boolean ownsContext, MpConfig config,
      IdleStrategyKey.Backoff idle, Duration block) {
    Job job = ctx.job();
    Connections conn = new Connections(ctx, job, config);
    ConnectionManager cm = null;
    if (config.strategy() == MpConfig.Strategy.ON_DEMAND) {
      try {
        cm = new ConnectionManager(conn, job.rank(), config.gamma());
      } catch (RuntimeException e) {
        conn.closeShared(e);
        throw e;
      }
    }
    VerbsCommunicator c = new VerbsCommunicator(ctx, job, ownsContext, config, conn, cm,
        new CompletionWait(conn.cq, conn.channel, job, idle, block));
    Lockstep.Turn turn = Lockstep.current();
    if (turn != null) {
      turn.enter(); // set up: from now on this rank runs in its turns
    }
    return c;
  }

  private VerbsCommunicator(Context ctx, Job job, boolean ownsContext, MpConfig config, Connections conn,
      ConnectionManager cm, CompletionWait waiter) {
    super(job.rank(), job.size(), config.timeout(), waiter);
    this.ctx = ctx;
    this.ownsContext = ownsContext;
    this.config = config;
    this.conn = conn;
    this.waiter = waiter;
    this.pd = conn.pd;
    this.cq = conn.cq;
    this.regions = new Regions(pd);
    this.cm = cm;
    this.slots = conn.slots;
    this.slotSize = conn.slotSize;
    this.peers = conn.peers;
    Map<Integer, Request> rdma = new HashMap<>();
    this.sender = new Sender(job.rank(), conn, cm, rdma);
    this.rendezvous = new Rendezvous(job.rank(), config.rendezvous(), regions, sender, rdma, peerOf);
    this.hybrid = config.strategy().switches() ? new HybridSwitch(conn, sender, job.rank(),
        config.hybrid()) : null;
    this.timeline = new AppTimeline(ctx);
    LOG.debug("rank {} of {}: communicator up ({} slots of {} bytes per peer, eager limit {}, rendezvous {}, {})",
        rank(), size(), slots, slotSize, config.eagerLimit(), config.rendezvous(), config.strategy());
  }

  /** @return the peer of rank {@code r}, created on first contact */
  private Peer peer(int r) {
    Peer p = peers.get(r);
    return p != null ? p : conn.newPeer(r);
  }

  /**
   * Gives the order in which this rank will name peers in its sends and receives (collectives
   * included), so that {@link MpConfig.Strategy#ON_DEMAND} closes the link used furthest in the
   * future instead of the least recently used one. Ignored by the baseline.
   *
   * @param trace peer ranks in the order of use
   */
  public void schedule(int[] trace) {
    ensureUsable();
    if (cm != null) {
      cm.schedule(trace.clone());
    }
  }

  /** @return this rank's link counts (hybrid: its RC links) */
  public LinkStats linkStats() {
    return cm != null ? cm.stats()
        : hybrid != null ? hybrid.stats().asLinkStats() : LinkStats.baseline(peers.ranks() - 1);
  }

  /** @return this rank's links by kind under {@link MpConfig.Strategy#HYBRID} or SHARED, else null */
  public HybridStats hybridStats() {
    return hybrid == null ? null : hybrid.stats();
  }

  /**
   * Makes progress until every closed link's QP and ring are destroyed (they linger briefly after
   * a closing), so that the memory meters show only open links; at most {@code wait}.
   *
   * @param wait the longest time to spend
   * @return closed links still held
   */
  public int releaseClosedLinks(Duration wait) {
    ensureUsable();
    long deadline = System.nanoTime() + wait.toNanos();
    waiter.reset();
    while (cm != null && cm.retiring() > 0 && System.nanoTime() - deadline < 0) {
      waiter.idle(progress());
    }
    return cm == null ? 0 : cm.retiring();
  }

  private void used(int r, boolean byApplication) {
    if (cm != null && r != rank()) {
      cm.used(peer(r), byApplication);
    } else if (hybrid != null && !byApplication) {
      hybrid.received(peer(r));
    }
  }

  private void ensureUsable() {
    if (closed) {
      throw new MpException("rank " + rank() + ": the communicator is closed");
    }
    if (broken != null) {
      throw new MpException("rank " + rank() + ": the communicator failed earlier: " + broken.getMessage(), broken);
    }
  }

  @Override
  public ByteBuffer allocate(int bytes) {
    ensureUsable();
    return regions.allocate(bytes);
  }

  @Override
  public ByteBuffer allocate(int bytes, MemoryKind kind) {
    ensureUsable();
    return regions.allocate(bytes, kind);
  }

  @Override
  public long nowNanos() {
    return timeline.nowNanos();
  }

  @Override
  public void compute(long nanos) {
    timeline.compute(nanos);
  }

  /** @return the settings */
  public MpConfig config() {
    return config;
  }

  /** @return how often a wait blocked on the completion channel and was woken by a completion */
  long completionWakeups() {
    return waiter.events();
  }

  @Override
  protected Request isend(ByteBuffer data, int dest, int tag, int context) {
    ensureUsable();
    timeline.beforePost();
    int len = data.remaining();
    Request r = new Request(Request.Kind.SEND, dest, tag, context, data, len);
    if (dest == rank()) {
      sendToSelf(r);
      return r;
    }
    used(dest, true);
    Peer p = peer(dest);
    if (len <= config.eagerLimit()) {
      sender.enqueue(p, new Outgoing(Wire.EAGER, context, tag, len, 0, 0, 0, 0, r));
    } else {
      rendezvous.send(p, r, data, len, tag, context);
    }
    sender.drain(p);
    return r;
  }

  @Override
  protected Request irecv(ByteBuffer into, int source, int tag, int context) {
    ensureUsable();
    timeline.beforePost();
    Request r = new Request(Request.Kind.RECV, source, tag, context, into, into.remaining());
    if (source != ANY_SOURCE) {
      used(source, true);
    }
    Incoming m = matcher.takeUnexpected(r);
    if (m == null) {
      matcher.post(r);
    } else if (m.data != null) {
      deliver(r, m.source, m.tag, ByteBuffer.wrap(m.data), 0, m.length);
    } else {
      rendezvous.matched(r, m.source, m.tag, m.length, (Rendezvous.Rts) m.rendezvous);
    }
    return r;
  }

  /** Posts a FENCE to {@code dest}: an empty collective message that needs no credit. */
  private Request postFence(int dest, int tag, ByteBuffer empty) {
    Request r = new Request(Request.Kind.SEND, dest, tag, COLLECTIVE, empty, 0);
    Peer p = peer(dest);
    sender.enqueue(p, new Outgoing(Wire.FENCE, COLLECTIVE, tag, 0, 0, 0, 0, 0, r));
    sender.drain(p);
    return r;
  }

  private void sendToSelf(Request r) {
    Request recv = matcher.takePosted(rank(), r.tag, r.context);
    if (recv != null) {
      deliver(recv, rank(), r.tag, r.buffer, r.buffer.position(), r.length);
    } else {
      byte[] copy = new byte[r.length];
      r.buffer.get(r.buffer.position(), copy);
      matcher.arrived(new Incoming(rank(), r.tag, r.context, r.length, copy, null));
    }
    r.complete(new Status(rank(), r.tag, r.length));
  }

  /** Copies a whole message into a receive, or fails it as truncated. */
  private void deliver(Request r, int source, int tag, ByteBuffer from, int offset, int length) {
    if (length > r.length) {
      r.fail(Rendezvous.truncated(rank(), r, source, tag, length));
      return;
    }
    r.buffer.put(r.buffer.position(), from, offset, length);
    r.complete(new Status(source, tag, length));
  }

  @Override
  protected int progress() {
    if (broken != null) {
      throw broken;
    }
    int work = 0;
    int n = cq.poll(wcs);
    timeline.inTimeOrder(wcs, n);
    for (int i = 0; i < n; i++) {
      timeline.completed(wcs[i]);
      handle(wcs[i]);
      if (i + 1 < n && timeline.before(wcs[i], wcs[i + 1])) {
        work += post(); // what it asked for goes at its own time, not at a later completion's
      }
    }
    return work + n + post();
  }

  /** Posts what waits, at the application's time. */
  private int post() {
    int work = 0;
    timeline.beforePost();
    if (cm != null) {
      work += sender.drainActive() + cm.drainClosing(sender) + cm.progress();
    } else {
      work += sender.drainActive() + (hybrid != null ? hybrid.progress() : 0);
    }
    return work;
  }

  private void handle(WorkCompletion wc) {
    long id = wc.wrId();
    int kind = (int) (id >>> 56);
    int epoch = (int) (id >>> 48) & 0xff;
    int peer = (int) (id >>> 32) & 0xffff;
    int index = (int) id;
    if (kind == WR_CONTROL_RECV || kind == WR_CONTROL_SEND) {
      cm.onControl(wc, kind, index, peerOf);
      return;
    }
    if (kind == WR_SHARED_RECV) {
      sharedReceived(wc, index);
      return;
    }
    Peer owner = peers.get(peer);
    Link l = owner.linkOf(epoch);
    if (l == null) {
      // a link that has closed: its last sends, or receives flushed when it went
      if (kind != WR_RECV && cm != null) {
        cm.retiredCompletion(owner, epoch, kind == WR_SEND, index, kind == WR_RDMA);
      }
      return;
    }
    if (wc.status() != WcStatus.SUCCESS && closing) {
      // a peer that finished closing first destroyed its QP; what was still in flight does not matter now
      LOG.debug("rank {}: completion {} from the QP to rank {} while closing", rank(), wc.status(), peer);
      if (kind != WR_RECV) {
        sender.completed(l);
      }
      if (kind == WR_SEND) {
        l.freeSendSlots.addLast(index);
      } else if (kind == WR_RDMA) {
        l.rdmaInFlight--;
      }
      return;
    }
    if (wc.status() != WcStatus.SUCCESS) {
      broken = new MpException("rank " + rank() + ": " + (kind == WR_RECV ? "receive" : kind == WR_SEND ? "send"
          : "RDMA") + " on the QP to rank " + peer + " completed with " + wc.status().str() + " ("
          + wc.status().value() + ")");
      throw broken;
    }
    if (kind != WR_RECV) {
      sender.completed(l);
    }
    switch (kind) {
      case WR_SEND -> l.freeSendSlots.addLast(index);
      case WR_RECV -> received(owner, l, l.ring, index);
      case WR_RDMA -> rendezvous.rdmaDone(owner, l, index);
      default -> throw new IllegalStateException("unknown wr_id 0x" + Long.toHexString(id));
    }
  }

  /** A message in a shared buffer: it belongs to no peer, the header names the sender (on its current link). */
  private void sharedReceived(WorkCompletion wc, int buffer) {
    if (wc.status() != WcStatus.SUCCESS) {
      if (closing) {
        return;
      }
      broken = new MpException("rank " + rank() + ": a shared receive completed with " + wc.status().str());
      throw broken;
    }
    if (wc.opcode() == WcOpcode.RECV_RDMA_WITH_IMM) { // hybrid: DC RDMA into the ring this rank gave the source
      conn.postShared(buffer); // the write consumed a receive of the pool but left its buffer alone
      Peer from = hybrid.ringOwner(wc.immData());
      received(from, from.dcLink, from.inRing, HybridSwitch.ringSlot(wc.immData()));
      return;
    }
    Peer from = peer(Wire.source(conn.pool, buffer * slotSize));
    if (from.link == null && conn.dcis != null) {
      conn.openDcLink(from); // DC: the sender needs no link here, but credits go back on one
    } else if (from.link == null) {
      broken = new MpException("rank " + rank() + ": a message from rank " + from.rank + " arrived with no link to it");
      throw broken;
    }
    received(from, from.dcLink != null ? from.dcLink : from.link, conn.pool, buffer); // hybrid: on the DC link
  }

  /** A message in receive slot or shared buffer {@code slot} of {@code slab}, from {@code p} on {@code l}. */
  private void received(Peer p, Link l, ByteBuffer slab, int slot) {
    int at = slot * slotSize;
    if (p.state == Peer.State.RTS && l == p.link) {
      p.state = Peer.State.OPEN; // the peer posted on the link: its QP is at RTS
    }
    if (Wire.version(slab, at) != Wire.VERSION) {
      broken = new MpException("rank " + rank() + ": message from rank " + p.rank + " has header version "
          + Wire.version(slab, at) + ", expected " + Wire.VERSION);
      throw broken;
    }
    int kind = Wire.kind(slab, at);
    int context = Wire.context(slab, at);
    int tag = Wire.tag(slab, at);
    int length = Wire.length(slab, at);
    l.credits += Wire.credits(slab, at);
    if (kind < Wire.CREDIT) {
      used(p.rank, false);
    }
    switch (kind) {
      case Wire.EAGER, Wire.FENCE -> {
        Request r = matcher.takePosted(p.rank, tag, context);
        if (r != null) {
          deliver(r, p.rank, tag, slab, at + Wire.HEADER_LENGTH, length);
        } else {
          byte[] copy = new byte[length];
          slab.get(at + Wire.HEADER_LENGTH, copy);
          matcher.arrived(new Incoming(p.rank, tag, context, length, copy, null));
        }
      }
      case Wire.RTS -> {
        Rendezvous.Rts rts = new Rendezvous.Rts(Wire.senderId(slab, at), Wire.addr(slab, at), Wire.rkey(slab, at));
        Request r = matcher.takePosted(p.rank, tag, context);
        if (r != null) {
          rendezvous.matched(r, p.rank, tag, length, rts);
        } else {
          matcher.arrived(new Incoming(p.rank, tag, context, length, null, rts));
        }
      }
      case Wire.CTS -> rendezvous.cts(p, slab, at);
      case Wire.FIN -> rendezvous.fin(p, slab, at);
      case Wire.CREDIT -> {
        // only the credits in the header
      }
      case Wire.CLOSE -> {
        if (cm == null && hybrid == null) {
          broken = new MpException("rank " + rank() + ": CLOSE from rank " + p.rank + " on a baseline connection");
          throw broken;
        }
        if (cm != null) {
          cm.closeReceived(p); // the peer's last message on this link: its own slot is not posted again
        } else {
          hybrid.closeReceived(p); // its last message on RC: the pair goes back to DC
        }
        if (slab == conn.pool) {
          conn.postShared(slot);
        }
        return;
      }
      default -> {
        if (hybrid == null || !hybrid.marker(p, kind, slab, at)) {
          broken = new MpException("rank " + rank() + ": message kind " + kind + " from rank " + p.rank + " is unknown");
          throw broken;
        }
      }
    }
    if (slab == conn.pool) {
      conn.postShared(slot);
    } else if (slab == l.ring) {
      conn.postRecvSlot(l, slot);
    }
    if (kind < Wire.CREDIT && (slab != conn.pool || !p.ringOffered)) { // DC RDMA: only the ring's messages count
      l.owed++;
    }
    sender.touch(p); // credits owed, or RDMA to start after a CTS
  }

  @Override
  protected String diagnostics() {
    StringBuilder b = new StringBuilder("; receives posted ").append(matcher.postedCount()).append(", unexpected ")
        .append(matcher.unexpectedCount());
    for (Peer p : peers) {
      if (p != null) {
        p.describe(b);
      }
    }
    if (cm != null) {
      cm.describe(b.append("; on-demand "), null);
    }
    return b.toString();
  }

  /**
   * The on-demand connection manager's handshake states (for a report after a timeout: another
   * thread may read them once the ranks have stopped; a rank still running may change them
   * meanwhile).
   *
   * @param peer a peer to describe even when it has no link (the one a timed-out wait names), or -1
   * @return the states, or "" without on-demand connections
   */
  public String connectionStates(int peer) {
    if (cm == null) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    Peer focus = peer >= 0 && peer < peers.ranks() ? peers.get(peer) : null;
    cm.describe(b, focus);
    if (focus == null && peer >= 0 && peer < peers.ranks()) {
      b.append("; rank ").append(peer).append(": no contact yet");
    }
    return b.toString();
  }

  /**
   * Meets the other ranks in a barrier, waits until everything this rank sent has completed, meets
   * them again in a fence, then destroys the QPs and memory (and the device when {@link
   * #open(MpConfig)} opened it).
   *
   * <p>The fence is there because a message may still be on its way to a rank that has left the
   * first barrier: credits this rank returned while it waited in it. Had that rank destroyed its
   * QPs, the message would never be acknowledged, and on DC it would hold up everything behind it
   * on its initiator, a later barrier message to a third rank included, for the ~34 s of retries
   * (Open MPI's finalize ends with an out-of-band fence for the same reason). The fence's messages
   * (FENCE) need no credit, as none are returned once closing; a rank sends them only after its
   * own sends have completed, so a rank that leaves the fence knows every rank's last messages
   * were acknowledged; it waits for its FENCEs to complete too before it destroys anything. On-demand
   * links need none: their CLOSE handshake ends each link ({@link #quiesce()}).
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    RuntimeException failure = null;
    if (hybrid != null) {
      hybrid.stop();
    }
    if (broken == null) {
      try {
        barrier();
        closing = true;
        sender.closing = true;
        quiesce();
        if (cm == null) {
          disseminate(FENCE, this::postFence); // no rank destroys before every rank's last sends completed
          quiesce(); // the fence's own messages: a QP destroyed with a send not yet gone would drop it
        }
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    closed = true;
    List<AutoCloseable> all = new ArrayList<>(conn.links());
    if (cm != null) {
      all.addAll(cm.closeables());
    }
    if (hybrid != null) {
      all.addAll(hybrid.retired());
    }
    rendezvous.bounces(all);
    all.addAll(regions.all());
    all.addAll(conn.afterLinks(waiter));
    if (ownsContext) {
      all.add(ctx);
    }
    failure = Connections.closeAll(all, failure);
    conn.memory.releaseAll();
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * After the closing barrier: waits (at most {@link #QUIESCE}) until every posted send and RDMA
   * operation has completed, returning no more credits and ignoring errors from peers that closed
   * first. Every message a peer still needed was delivered before the barrier could complete. On
   * demand, every link is also closed with its peer first ({@link ConnectionManager#closeAll()}).
   */
  private void quiesce() {
    long deadline = System.nanoTime() + QUIESCE.toNanos();
    waiter.reset();
    while (true) {
      boolean idle = (cm == null || cm.closeAll()) && (hybrid == null || hybrid.settled());
      for (Peer p : peers) {
        Link l = p == null ? null : p.link;
        if (l != null && p.state == Peer.State.OPEN
            && (!l.sendsDone() || l.rdmaInFlight > 0 || !p.pending.isEmpty())) {
          idle = false;
          break;
        }
      }
      if (idle) {
        return;
      }
      int work = progress();
      waiter.idle(work);
      if (work == 0) {
        if (System.nanoTime() - deadline > 0) {
          LOG.debug("rank {}: sends still outstanding at close after {} ms{}", rank(), QUIESCE.toMillis(),
              diagnostics());
          return;
        }
      }
    }
  }
}
