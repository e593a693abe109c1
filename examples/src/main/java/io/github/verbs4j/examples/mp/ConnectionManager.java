package io.github.verbs4j.examples.mp;

import static io.github.verbs4j.examples.mp.Connections.WR_CONTROL_RECV;
import static io.github.verbs4j.examples.mp.Connections.WR_CONTROL_SEND;
import static io.github.verbs4j.examples.mp.Connections.wrId;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.verbs.spi.MemoryComponent;
import io.github.verbs4j.verbs.spi.wire.Grh;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * On-demand connections ({@link MpConfig.Strategy#ON_DEMAND}, seed 003 §3.2): opens a peer's link
 * when there is something to send to it, keeps at most γ links it opened itself, and closes one to
 * make room.
 *
 * <p><b>Opening</b>: each rank has a UD control QP whose address (LID, QPN) it publishes in the
 * job's key-value store at start. To connect, a rank creates its RC QP and ring and sends CONNECT
 * (its RC address and the pair's epoch, {@link ControlWire}): {@link Peer.State#CONNECTING}. The
 * peer creates its own, brings it to RTS ({@link Peer.State#RTS}: it posts nothing yet) and answers
 * with CONNECT flagged RTS; the first brings its QP to RTS and may send ({@link Peer.State#OPEN}),
 * and answers with CONNECT flagged RTS and CONFIRMED; that answer, or the first message on the
 * link, makes the peer OPEN. If both start at once each connects to the other's QP. Every CONNECT
 * not flagged CONFIRMED is answered, in every state, so a lost answer is made good when the peer
 * sends its CONNECT again, which it does every {@link #RESEND_NANOS} while CONNECTING or RTS; every
 * step is idempotent per epoch ({@link #onConnect}). A rank accepts while
 * it has fewer than 2γ links, so a ring of ranks that all wait for each other cannot deadlock: at
 * 2γ at least γ of them were accepted and are open, and one of those can be closed.
 *
 * <p><b>Closing</b> (eviction): the victim is the open link used furthest in the future when a
 * schedule of peers was given ({@link #schedule}), else the least recently used. Nothing new is
 * posted on it; once its sends and RDMA operations have completed, CLOSE is sent on it (RC keeps it
 * behind everything sent before). A rank that receives CLOSE does the same. When a side has sent
 * its CLOSE and received the peer's, everything either side sent on the link has been received;
 * both move to the next epoch and anything still waiting goes on the next link. The old QP lingers
 * until its CLOSE has completed and {@link #LINGER_NANOS} more (so an ACK the device holds still
 * leaves), then it is destroyed and its ring goes to the {@link RingPool}. However long the CLOSE
 * takes: a side may have received the peer's CLOSE before its own one reached the peer (both
 * closed at once), and until it does the peer cannot leave the epoch, and drops this side's
 * CONNECTs of the next one. The CLOSE completes, at the latest with an error once the device's
 * retries are spent (the peer destroyed its QP after it had the CLOSE and our ACK was lost).
 */
final class ConnectionManager {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionManager.class);
  static final int CONTROL_RECVS = 64;
  static final int CONTROL_SENDS = 16;
  static final int CONTROL_CQES = CONTROL_RECVS + CONTROL_SENDS;
  private static final int CONTROL_SLOT = 64;
  private static final int CONTROL_RECV_SLOT = Grh.LENGTH + CONTROL_SLOT;
  /** The control QP's registered buffers. */
  static final long CONTROL_BYTES = (long) CONTROL_RECVS * CONTROL_RECV_SLOT + (long) CONTROL_SENDS * CONTROL_SLOT;
  private static final int QKEY = 0x6d70;
  /** How long a CONNECT waits for its answer before it is sent again. */
  static final long RESEND_NANOS = 100_000_000L;
  /** How long a closed link's QP stays after its CLOSE completed. */
  static final long LINGER_NANOS = 20_000_000L;

  private final Connections conn;
  private final int rank;
  private final int gamma;
  private final QueuePair ud;
  private final MemoryRegion controlMr;
  private final ByteBuffer control;
  private final ArrayDeque<Integer> freeControlSlots = new ArrayDeque<>();
  private final SendWr swr = new SendWr();
  private final RecvWr rwr = new RecvWr();
  /** Peers with a link (CONNECTING to CLOSE_SENT). */
  private final List<Peer> live = new ArrayList<>();
  /** Peers with work that wait for room to connect. */
  private final ArrayDeque<Peer> waiting = new ArrayDeque<>();
  /** Closed links whose QP is not destroyed yet. */
  private final List<Link> retiring = new ArrayList<>();
  private long useClock;
  private long position;
  private int[][] nextUses;
  /** Links opened so far, and evictions begun, over the communicator's life. */
  private long opened;
  private long evictions;
  private int peakLinks;
  private boolean stopped;

  ConnectionManager(Connections conn, int rank, int gamma) {
    this.conn = conn;
    this.rank = rank;
    this.gamma = gamma;
    controlMr = conn.pd.allocateMemory(CONTROL_BYTES, EnumSet.of(Access.LOCAL_WRITE));
    try {
      control = controlMr.buffer().order(ByteOrder.LITTLE_ENDIAN);
      conn.memory.add(control, MemoryComponent.MP_BUFFERS, controlMr.length());
      ud = conn.pd.createQp(QpInitAttr.builder(QpType.UD).cq(conn.cq).cap(QpCap.builder().maxSendWr(CONTROL_SENDS)
          .maxRecvWr(CONTROL_RECVS).maxSendSge(1).maxRecvSge(1).build()).build());
      ud.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1).qkey(QKEY));
      ud.modify(new QpAttr().qpState(QpState.RTR));
      ud.modify(new QpAttr().qpState(QpState.RTS).sqPsn(0));
      for (int i = 0; i < CONTROL_RECVS; i++) {
        postControlRecv(i);
      }
      for (int i = 0; i < CONTROL_SENDS; i++) {
        freeControlSlots.add(i);
      }
      conn.channelKvs.publish("ud", conn.lid + ";" + ud.qpNum());
      conn.channelKvs.barrier();
    } catch (RuntimeException e) {
      closeQuietly(e);
      throw e;
    }
  }

  private void closeQuietly(RuntimeException e) {
    for (AutoCloseable c : closeables()) {
      try {
        c.close();
      } catch (Exception x) {
        e.addSuppressed(x);
      }
    }
  }

  /**
   * The order in which this rank will name peers in its sends and receives; with it, eviction
   * closes the link used furthest in the future (Belady) instead of the least recently used.
   *
   * @param trace peer ranks in the order of use
   */
  void schedule(int[] trace) {
    int n = conn.peers.ranks();
    int[] counts = new int[n];
    for (int r : trace) {
      if (r < 0 || r >= n) {
        throw new IllegalArgumentException("schedule entry " + r + " is not a rank of this communicator (size " + n
            + ")");
      }
      counts[r]++;
    }
    int[][] uses = new int[n][];
    for (int r = 0; r < n; r++) {
      uses[r] = new int[counts[r]];
    }
    Arrays.fill(counts, 0);
    for (int i = 0; i < trace.length; i++) {
      uses[trace[i]][counts[trace[i]]++] = i;
    }
    nextUses = uses;
    position = 0;
  }

  /** Notes a use of {@code p}: by the application (advances the schedule) or by a message from it. */
  void used(Peer p, boolean byApplication) {
    p.lastUse = ++useClock;
    if (byApplication) {
      position++;
    }
  }

  /** @return the counts of links */
  LinkStats stats() {
    return new LinkStats(live.size(), peakLinks, opened, evictions, retiring.size(), conn.rings.spares(),
        conn.rings.allocated());
  }

  /** @return links open now (CONNECTING to CLOSE_SENT) */
  int links() {
    return live.size();
  }

  /** @return the most links open at once so far */
  int peakLinks() {
    return peakLinks;
  }

  /** @return links opened so far */
  long opened() {
    return opened;
  }

  /** @return closings begun by this rank so far */
  long evictions() {
    return evictions;
  }

  /** @return closed links whose QP is still held */
  int retiring() {
    return retiring.size();
  }

  /**
   * The communicator is closing (after its closing barrier): no more evictions by policy; instead
   * every open link is closed with the handshake, so that no peer still sends on a QP this rank
   * destroys.
   *
   * @return whether every link is closed and every retired QP may be destroyed
   */
  boolean closeAll() {
    stopped = true;
    for (Peer p : live) {
      if (p.state == Peer.State.OPEN) {
        p.state = Peer.State.DRAINING;
      }
    }
    if (!live.isEmpty()) {
      return false;
    }
    for (Link l : retiring) {
      if (!l.closeCompleted) {
        return false;
      }
    }
    return true;
  }

  /**
   * {@code p} has work and no link: open one now, or when there is room.
   *
   * @return whether this did something (connected or queued {@code p}); asking again while {@code
   *     p} waits for room is no work, so the rank's wait may block instead of spinning
   */
  boolean want(Peer p) {
    if (p.state != Peer.State.IDLE || waiting.contains(p)) {
      return false;
    }
    if (live.size() < gamma) {
      connect(p);
    } else {
      waiting.add(p);
    }
    return true;
  }

  private void connect(Peer p) {
    if (p.udQpn == 0) {
      String[] f = conn.channelKvs.lookup("ud", p.rank).split(";");
      p.lid = Integer.parseInt(f[0]);
      p.udQpn = Integer.parseInt(f[1]);
    }
    open(p);
    p.state = Peer.State.CONNECTING;
    sendConnect(p);
  }

  private void open(Peer p) {
    p.link = conn.openLink(p);
    live.add(p);
    opened++;
    peakLinks = Math.max(peakLinks, live.size());
  }

  /** Sends CONNECT to {@code p}, flagged by its state: RTS from RTS on, CONFIRMED from OPEN on. */
  private void sendConnect(Peer p) {
    p.connectSentAt = System.nanoTime();
    Integer slot = freeControlSlots.pollFirst();
    if (slot == null) {
      return; // sent again by the timer
    }
    if (p.ah == null) {
      p.ah = conn.pd.createAh(AhAttr.lid(p.lid));
    }
    int at = CONTROL_RECVS * CONTROL_RECV_SLOT + slot * CONTROL_SLOT;
    boolean rts = p.state != Peer.State.CONNECTING;
    ControlWire.writeConnect(control, at, rts, rts && p.state != Peer.State.RTS, rank, p.epoch, conn.lid,
        p.link.qp.qpNum(), conn.psn, conn.mtu, conn.outReads, ud.qpNum());
    swr.wrId(wrId(WR_CONTROL_SEND, 0, p.rank, slot)).opcode(WrOpcode.SEND).sge(controlMr, at, ControlWire.LENGTH)
        .signaled(true).ud(p.ah, p.udQpn, QKEY);
    ud.postSend(swr);
  }

  private void postControlRecv(int slot) {
    rwr.wrId(wrId(WR_CONTROL_RECV, 0, 0, slot)).sge(controlMr, (long) slot * CONTROL_RECV_SLOT, CONTROL_RECV_SLOT);
    ud.postRecv(rwr);
  }

  /**
   * A completion on the control QP.
   *
   * @param wc the completion
   * @param kind its wr_id kind
   * @param index its slot
   * @param peers the communicator's peers, created on first contact
   */
  void onControl(WorkCompletion wc, int kind, int index, IntFunction<Peer> peers) {
    if (kind == WR_CONTROL_SEND) {
      freeControlSlots.addLast(index);
      if (wc.status() != WcStatus.SUCCESS) {
        LOG.debug("rank {}: CONNECT completed with {}", rank, wc.status());
      }
      return;
    }
    if (wc.status() == WcStatus.SUCCESS) {
      int at = index * CONTROL_RECV_SLOT + Grh.LENGTH;
      if (control.get(at) == ControlWire.VERSION && control.get(at + ControlWire.KIND_OFFSET) == ControlWire.CONNECT) {
        Peer p = peers.apply(control.getInt(at + ControlWire.RANK_OFFSET));
        connectReceived(p, at);
      }
    }
    postControlRecv(index);
  }

  private void connectReceived(Peer p, int at) {
    int epoch = control.getInt(at + ControlWire.EPOCH_OFFSET);
    int flags = control.get(at + ControlWire.FLAGS_OFFSET);
    if (epoch != p.epoch) {
      return; // an older epoch's datagram, or one from a peer that finished closing first: it sends again
    }
    p.lid = control.getInt(at + ControlWire.LID_OFFSET);
    p.udQpn = control.getInt(at + ControlWire.UD_QPN_OFFSET);
    if (p.state == Peer.State.IDLE) {
      if (live.size() >= conn.maxLinks) {
        return; // no room: the peer sends again
      }
      waiting.remove(p);
      open(p);
    }
    if (p.state == Peer.State.IDLE || p.state == Peer.State.CONNECTING) {
      conn.connectLink(p.link, control.getInt(at + ControlWire.LID_OFFSET),
          control.getInt(at + ControlWire.QPN_OFFSET), control.getInt(at + ControlWire.PSN_OFFSET),
          control.getInt(at + ControlWire.OUT_READS_OFFSET), control.getInt(at + ControlWire.MTU_OFFSET));
    }
    p.state = onConnect(p.state, (flags & ControlWire.FLAG_RTS) != 0);
    if ((flags & ControlWire.FLAG_CONFIRMED) == 0) {
      sendConnect(p); // the peer does not know our QP is at RTS (or ours was lost): tell it
    }
  }

  /**
   * The handshake's step on a CONNECT of the current epoch, once our QP is connected to the
   * sender's: IDLE and CONNECTING go to RTS, or to OPEN when the sender is at RTS too; RTS goes to
   * OPEN when it is; later states stay (a late or repeated CONNECT).
   *
   * @param s the peer's state
   * @param rts whether the CONNECT is flagged RTS
   * @return the next state
   */
  static Peer.State onConnect(Peer.State s, boolean rts) {
    return switch (s) {
      case IDLE, CONNECTING, RTS -> rts ? Peer.State.OPEN : Peer.State.RTS;
      case OPEN, DRAINING, CLOSE_SENT -> s;
    };
  }

  /** The peer's CLOSE arrived on the current link. */
  void closeReceived(Peer p) {
    p.peerClosed = true;
    if (p.state == Peer.State.OPEN) {
      p.state = Peer.State.DRAINING;
    } else if (p.state == Peer.State.CLOSE_SENT) {
      finish(p);
    }
  }

  /** Our CLOSE is posted on the current link. */
  void closeSent(Peer p) {
    if (p.peerClosed) {
      finish(p);
    } else {
      p.state = Peer.State.CLOSE_SENT;
    }
  }

  /** Both CLOSEs are through: the link retires, the pair moves to the next epoch. */
  private void finish(Peer p) {
    Link l = p.link;
    l.retiredAt = System.nanoTime();
    l.closeCompletedAt = l.retiredAt;
    l.closeCompleted = l.rdmaInFlight == 0 && l.sendsDone(); // our CLOSE may be done
    retiring.add(l);
    live.remove(p);
    p.link = null;
    p.state = Peer.State.IDLE;
    p.epoch++;
    p.peerClosed = false;
    if (p.ah != null) {
      p.ah.close();
      p.ah = null;
    }
  }

  /**
   * A completion of a link that has already retired (its epoch is over).
   *
   * @param p the peer
   * @param epoch the wr_id's epoch (8 bits)
   * @param isSend a SEND (else RDMA or a receive)
   * @param slot the send slot
   * @param isRdma an RDMA operation
   */
  void retiredCompletion(Peer p, int epoch, boolean isSend, int slot, boolean isRdma) {
    for (int i = 0; i < retiring.size(); i++) { // indexed, here and in progress: no iterator per call
      Link l = retiring.get(i);
      if (l.peer == p.rank && (l.epoch & 0xff) == epoch) {
        if (isSend) {
          l.freeSendSlots.addLast(slot);
        } else if (isRdma) {
          l.rdmaInFlight--;
        }
        if (!l.closeCompleted && l.rdmaInFlight == 0 && l.sendsDone()) {
          l.closeCompleted = true;
          l.closeCompletedAt = System.nanoTime();
        }
        return;
      }
    }
  }

  /**
   * Drains the links that are closing (their state changes on completions, which touch no peer),
   * so that progress visits the active peers and these instead of every rank of the job.
   *
   * @param sender the sender
   * @return work done
   */
  int drainClosing(Sender sender) {
    int work = 0;
    for (int i = live.size() - 1; i >= 0; i--) { // backwards: a drained peer may leave live (and only it)
      Peer p = live.get(i);
      if (p.state == Peer.State.DRAINING) {
        work += sender.drain(p);
      }
    }
    return work;
  }

  /**
   * Resends unanswered CONNECTs, opens links for waiting peers when there is room, starts a
   * closing when there is none, and destroys retired links.
   *
   * @return work done
   */
  int progress() {
    int work = 0;
    long now = System.nanoTime();
    for (int i = 0; i < live.size(); i++) {
      Peer p = live.get(i);
      if ((p.state == Peer.State.CONNECTING || p.state == Peer.State.RTS) && now - p.connectSentAt > RESEND_NANOS) {
        sendConnect(p);
        work++;
      }
    }
    while (!waiting.isEmpty() && live.size() < gamma) {
      Peer p = waiting.pollFirst();
      if (p.state == Peer.State.IDLE && p.hasWork()) {
        connect(p);
        work++;
      }
    }
    int closing = 0;
    for (int i = 0; i < live.size(); i++) {
      Peer.State s = live.get(i).state;
      if (s == Peer.State.DRAINING || s == Peer.State.CLOSE_SENT) {
        closing++;
      }
    }
    int open = live.size() - closing;
    if (!stopped && (open > gamma || !waiting.isEmpty() && open >= gamma && closing == 0)) {
      Peer victim = victim();
      if (victim != null) {
        victim.state = Peer.State.DRAINING;
        evictions++;
        work++;
      }
    }
    for (int i = 0; i < retiring.size(); i++) {
      Link l = retiring.get(i);
      if (l.closeCompleted && now - l.closeCompletedAt > LINGER_NANOS) { // never before: the peer may still need it
        retiring.remove(i--);
        conn.closeLink(l, null);
        work++;
      }
    }
    return work;
  }

  /**
   * Appends the handshake states for a timed-out wait: the counts, the peers waiting for room, each
   * link (peer rank, state, epoch, work queued, credits, send slots free), and {@code focus} (the
   * peer the wait names) when it has no link.
   *
   * @param b where to append
   * @param focus a peer to describe even without a link, or null
   */
  void describe(StringBuilder b, Peer focus) {
    long now = System.nanoTime();
    int[] byState = new int[Peer.State.values().length];
    for (Peer p : live) {
      byState[p.state.ordinal()]++;
    }
    b.append("links ").append(live.size()).append(" (gamma ").append(gamma).append(", accepting below ")
        .append(conn.maxLinks);
    for (Peer.State s : Peer.State.values()) {
      if (byState[s.ordinal()] > 0) {
        b.append(", ").append(s).append(' ').append(byState[s.ordinal()]);
      }
    }
    int closeInFlight = 0;
    long oldest = now;
    for (Link l : retiring) {
      if (!l.closeCompleted) {
        closeInFlight++;
        oldest = Math.min(oldest, l.retiredAt);
      }
    }
    b.append("), retiring ").append(retiring.size())
        .append(" (CLOSE not completed ").append(closeInFlight).append(", the oldest for ")
        .append((now - oldest) / 1_000_000).append(" ms), control send slots free ").append(freeControlSlots.size()).append(", waiting for room:");
    for (Peer p : waiting) {
      b.append(' ').append(p.rank);
    }
    for (Peer p : live) {
      describe(b.append("; "), p, now);
    }
    if (focus != null && !live.contains(focus)) {
      describe(b.append("; "), focus, now);
    }
  }

  private void describe(StringBuilder b, Peer p, long now) {
    Link l = p.link;
    b.append("rank ").append(p.rank).append(' ').append(p.state);
    b.append(" epoch ").append(p.epoch).append(", queued ").append(p.pending.size() + p.pendingRdma.size());
    if (p.peerClosed) {
      b.append(", peer's CLOSE in");
    }
    if (waiting.contains(p)) {
      b.append(", waits for room");
    }
    if (l != null) {
      b.append(", credits ").append(l.credits).append(", send slots free ").append(l.freeSendSlots.size()).append('/')
          .append(l.sendSlots).append(", RDMA ").append(l.rdmaInFlight);
      if (p.state == Peer.State.CONNECTING || p.state == Peer.State.RTS) {
        b.append(", CONNECT sent ").append((now - p.connectSentAt) / 1_000_000).append(" ms ago");
      }
    }
  }

  /** The OPEN link used furthest in the future (by the schedule) or least recently. */
  private Peer victim() {
    Peer best = null;
    long bestScore = Long.MIN_VALUE;
    for (int i = 0; i < live.size(); i++) {
      Peer p = live.get(i);
      if (p.state != Peer.State.OPEN) {
        continue;
      }
      long score = nextUses != null ? nextUse(p.rank) : -p.lastUse;
      if (best == null || score > bestScore) {
        best = p;
        bestScore = score;
      }
    }
    return best;
  }

  private long nextUse(int r) {
    int[] uses = nextUses[r];
    int i = Arrays.binarySearch(uses, (int) Math.min(Integer.MAX_VALUE, position));
    if (i < 0) {
      i = -i - 1;
    }
    return i < uses.length ? uses[i] : Long.MAX_VALUE;
  }

  /** @return what the communicator closes before the PD: retired links, AHs, the control QP and region */
  List<AutoCloseable> closeables() {
    List<AutoCloseable> l = new ArrayList<>();
    for (Link r : retiring) {
      l.add(r.qp);
      l.add(r.ringMr);
    }
    retiring.clear();
    for (Peer p : conn.peers) {
      if (p != null && p.ah != null) {
        l.add(p.ah);
        p.ah = null;
      }
    }
    if (ud != null) {
      l.add(ud);
    }
    l.add(controlMr);
    return l;
  }
}
