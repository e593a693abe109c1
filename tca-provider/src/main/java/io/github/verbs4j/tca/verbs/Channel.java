package io.github.verbs4j.tca.verbs;

import io.github.verbs4j.tca.peach2.DescriptorMode;
import io.github.verbs4j.tca.peach2.DmaDescriptor;
import io.github.verbs4j.tca.peach2.Dmac;
import io.github.verbs4j.tca.peach2.InternalDescriptorMemory;
import io.github.verbs4j.tca.peach2.Peach2Board;
import io.github.verbs4j.tca.peach2.TcaMallocPool;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two rings between this node and one peer (seed 000 §3.2): the low-latency ring (fixed
 * 128-byte packets, one DMA each from descriptors prebuilt in the board's internal memory) and the
 * high-bandwidth ring (variable packets, as many per DMA as are waiting, descriptors written in
 * host memory, a chain that continues across the ring's wrap and ends with the send PSN). Both
 * rings share one packet sequence, so the receiver consumes packets in the order they were sent
 * whichever ring carried them. The two rings' DMA channels are not ordered with each other: a
 * packet may land on one ring before an earlier one lands on the other, and the receiver waits for
 * the earlier one.
 *
 * <p>Sending: a packet is written straight into the staging memory of a ring when nothing waits
 * and the credits allow (its payload gathered there from the sender's memory: the only copy before
 * the DMA), else it waits with a copy and {@link #flush()} moves it when credits come; credits come
 * from the receive PSN the peer writes back into this node's receive area for it. Receiving:
 * {@link #poll} reads the send PSNs the peer wrote into this node's area, takes packets in
 * sequence, hands each to the proxy where it lies in the ring, and then writes the receive PSNs
 * back to the peer by PIO.
 *
 * <p><b>Acknowledgement.</b> As in seed 000, the receive PSN written back is the acknowledgement:
 * no ACK packet follows an RC SEND, WRITE or FIN ({@link Packet#F_ACK_REQ}). The write-back also
 * carries the number of this side's packets the peer has taken; a packet it took is accepted
 * unless the peer answered it with a NAK or a {@link Packet#DISCARDED} note. Those travel in the
 * ring, behind the write-back's PIO, so the write-back names a fence — the peer's packets up to
 * its last such answer — and is applied only once this side has taken them. The sender keeps,
 * per sequence number, which QP and PSN a packet acknowledges ({@link Sink#onDelivered}).
 *
 * <p>Used only under the proxy's agent lock.
 */
final class Channel {
  private static final Logger LOG = LoggerFactory.getLogger(Channel.class);
  private static final int DMA_LL = 0;
  private static final int DMA_HB = 1;
  /** Packets placed and not yet acknowledged by a write-back that this side applied (power of two). */
  private static final int RECORDS = 2048;

  private final Peach2Board board;
  private final VerbsCosts costs;
  final int peer;
  /** This node's receive area for the peer: its buffer, and the block's base index in it. */
  private final ByteBuffer area;
  private final int areaIndex;
  /** The peer's receive area for this node (global address). */
  private final long remoteArea;
  private final int llMax;

  // ---- send side (allocated on first send)
  private TcaMallocPool.Block staging;
  private ByteBuffer stage;
  private long stageBase;
  private TcaMallocPool.Block hbDescriptors;
  private int llFirstDescriptor = -1;
  private long llSent;
  private long hbSentPos;
  /** HB bytes up to here have been DMA-written; [hbPlaced, hbSentPos) are placed and wait for it. */
  private long hbPlaced;
  private final ByteBuffer headerScratch = ByteBuffer.allocateDirect(Packet.HEADER).order(ByteOrder.LITTLE_ENDIAN);
  private int nextSeq;
  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  private final ArrayDeque<Pending> free = new ArrayDeque<>();
  /** Per sequence number (mod RECORDS): the QP an F_ACK_REQ packet came from (-1: none) and its PSN. */
  private final int[] recordQpn = new int[RECORDS];
  private final int[] recordPsn = new int[RECORDS];
  private final Packet note = new Packet();
  /** This side's packets below this seq have been acknowledged by an applied write-back. */
  private int ackApplied;
  /** One past the seq of the last NAK or DISCARDED this side sent: the fence of its write-backs. */
  private int fence;

  // ---- receive side
  private long llConsumed;
  private long hbConsumedPos;
  private int expectedSeq;
  /** The write-back: LL receive PSN, HB receive position, acknowledgement word ({@link Layout}). */
  private final ByteBuffer creditWords = ByteBuffer.allocateDirect(24).order(ByteOrder.LITTLE_ENDIAN);

  // staging layout: LL slots, LL PSN words (16 apart), HB mirror, HB PSN word at +8 mod 16
  private static final int ST_LL = 0;
  private static final int ST_LL_PSN = ST_LL + Layout.LL_SLOTS * Layout.LL_SLOT;
  private static final int ST_HB = ST_LL_PSN + Layout.LL_SLOTS * 16;
  private static final int ST_HB_PSN = ST_HB + Layout.HB_BYTES + 8;
  private static final int STAGING = ST_HB_PSN + 8;

  Channel(Peach2Board board, VerbsCosts costs, int peer, ByteBuffer area, int areaIndex, int llMax) {
    this.board = board;
    this.costs = costs;
    this.peer = peer;
    this.area = area;
    this.areaIndex = areaIndex;
    this.remoteArea = Layout.area(board.window().hostBase(peer), board.nodeId());
    this.llMax = llMax;
    Arrays.fill(recordQpn, -1);
  }

  // ================================================================== send

  /** A packet waiting for credits: its header and a copy of its payload. */
  private static final class Pending {
    final Packet header = new Packet();
    ByteBuffer payload = ByteBuffer.allocate(0);
  }

  /**
   * Sends a packet whose payload (if any) is in a buffer. It goes straight into the ring's
   * staging memory when nothing waits and the credits allow, else it waits with a copy.
   *
   * @param p the header (copied; seq is assigned here)
   * @param payload payload source, or null
   * @param at first payload byte (absolute)
   * @return the sequence number the packet takes
   */
  int send(Packet p, ByteBuffer payload, int at) {
    return send(p, payload, at, null, null);
  }

  /**
   * Sends a packet whose payload is message bytes {@code [from, from + payloadLength)} of a send
   * WQE, gathered from its SGEs (or inline data) straight into the ring's staging memory when
   * nothing waits and the credits allow, else into a waiting copy.
   *
   * @param p the header (copied; seq is assigned here)
   * @param ctx the context whose regions the SGEs name
   * @param w the WQE
   * @param from first message byte
   * @return the sequence number the packet takes
   */
  int send(Packet p, TcaContext ctx, SendWqe w, int from) {
    return send(p, null, from, ctx, w);
  }

  private int send(Packet p, ByteBuffer payload, int at, TcaContext ctx, SendWqe w) {
    if (LOG.isTraceEnabled()) {
      LOG.trace("node {} tx to {}: {}", board.nodeId(), peer, p);
    }
    int seq = nextSeq + queue.size(); // waiting packets take their numbers in order
    if (p.opcode == Packet.NAK || p.opcode == Packet.DISCARDED) {
      fence = seq + 1;
    }
    if (queue.isEmpty()) {
      ensureSendSide();
      if (place(p, payload, at, ctx, w)) {
        return seq;
      }
    }
    Pending e = free.poll();
    if (e == null) {
      e = new Pending();
    }
    e.header.copyFrom(p); // its seq is given when it is placed
    int n = p.payloadLength;
    if (e.payload.capacity() < n) {
      e.payload = ByteBuffer.allocate(Math.max(n, 256));
    }
    if (n > 0) {
      copyPayload(e.payload, 0, n, payload, at, ctx, w);
      board.clock().charge(costs.copyNs(n));
    }
    queue.add(e);
    return seq;
  }

  /**
   * A packet taken from the ring was not accepted and not answered by a NAK: if it asked for an
   * acknowledgement, the peer is told, so the write-back does not acknowledge it.
   *
   * @param p its header
   */
  void discarded(Packet p) {
    if (!p.has(Packet.F_ACK_REQ)) {
      return;
    }
    Packet d = note.clear();
    d.opcode = Packet.DISCARDED;
    d.srcQpn = p.dstQpn;
    d.dstQpn = p.srcQpn;
    d.psn = p.psn;
    d.value = p.seq;
    send(d, null, 0);
  }

  /** Copies {@code len} payload bytes, from offset {@code off} of the packet's payload, to {@code dst[dstAt..]}. */
  private static void copyPayload(ByteBuffer dst, int dstAt, int len, ByteBuffer src, int at, TcaContext ctx,
      SendWqe w, int off) {
    if (w != null) {
      ctx.gatherRange(w, at + off, len, dst, dstAt);
    } else {
      dst.put(dstAt, src, at + off, len);
    }
  }

  private static void copyPayload(ByteBuffer dst, int dstAt, int len, ByteBuffer src, int at, TcaContext ctx,
      SendWqe w) {
    copyPayload(dst, dstAt, len, src, at, ctx, w, 0);
  }

  /** @return whether packets wait for credits or placed packets wait for their DMA */
  boolean hasQueued() {
    return !queue.isEmpty() || hbPlaced != hbSentPos;
  }

  private void ensureSendSide() {
    if (staging != null) {
      return;
    }
    TcaMallocPool pool = board.hostPool();
    staging = pool.allocate(STAGING, 64);
    stage = staging.buffer();
    stageBase = staging.address();
    hbDescriptors = pool.allocate(4 * DmaDescriptor.LENGTH, 64);
    InternalDescriptorMemory internal = board.dmac().internalMemory();
    int first = internal.allocate(2 * Layout.LL_SLOTS);
    if (first >= 0) {
      // prebuilt once: slot s = [packet -> remote slot s] chained to [PSN word s -> remote LL send PSN]
      for (int s = 0; s < Layout.LL_SLOTS; s++) {
        internal.write(first + 2 * s, stageBase + ST_LL + s * Layout.LL_SLOT,
            remoteArea + Layout.LL_RING + s * Layout.LL_SLOT, Layout.LL_SLOT, 0, 0, DmaDescriptor.FLAG_CHAIN,
            first + 2 * s + 1);
        internal.write(first + 2 * s + 1, stageBase + ST_LL_PSN + s * 16, remoteArea + Layout.LL_SEND_PSN, 8, 0, 0,
            0, -1);
      }
      llFirstDescriptor = first;
    }
  }

  /**
   * Puts one packet into the staging memory of a ring if the credits allow: a low-latency packet
   * is DMA-written at once (after the high-bandwidth bytes placed before it, so the peer finds the
   * sequence in order), a high-bandwidth one waits for {@link #flush()} to DMA it with the others
   * placed in the same duty cycle.
   *
   * @return false if the rings have no room (nothing was written)
   */
  private boolean place(Packet p, ByteBuffer payload, int at, TcaContext ctx, SendWqe w) {
    if (nextSeq - ackApplied >= RECORDS) {
      return false; // the acknowledgement records are full: wait for the peer's write-back
    }
    if (p.payloadLength <= llMax && llFirstDescriptor >= 0 && llIdle()) {
      long llCredit = TcaMallocPool.getLongAcquire(area, areaIndex + Layout.LL_RECV_PSN);
      if (llSent - llCredit < Layout.LL_SLOTS) {
        dmaPlacedHb();
        int slot = (int) (llSent % Layout.LL_SLOTS);
        int base = ST_LL + slot * Layout.LL_SLOT;
        number(p);
        p.encode(stage, base);
        if (p.payloadLength > 0) {
          copyPayload(stage, base + Packet.HEADER, p.payloadLength, payload, at, ctx, w);
        }
        llSent++;
        stage.putLong(ST_LL_PSN + slot * 16, llSent);
        chargePlaced(p);
        board.dmac().channel(DMA_LL).start(DescriptorMode.INTERNAL, llFirstDescriptor + 2L * slot);
        return true;
      }
    }
    int need = Layout.pad16(p.bytes());
    long hbCredit = TcaMallocPool.getLongAcquire(area, areaIndex + Layout.HB_RECV_POS);
    if (Layout.HB_BYTES - (hbSentPos - hbCredit) < need) {
      return false;
    }
    number(p);
    writeHb(p, payload, at, ctx, w, hbSentPos);
    hbSentPos += need;
    chargePlaced(p);
    return true;
  }

  /** Gives the packet its sequence number and records what its acknowledgement completes. */
  private void number(Packet p) {
    p.seq = nextSeq++;
    int r = p.seq & (RECORDS - 1);
    recordQpn[r] = p.has(Packet.F_ACK_REQ) ? p.srcQpn : -1;
    recordPsn[r] = p.psn;
  }

  /** The CPU wrote the packet's header and payload into staging memory. */
  private void chargePlaced(Packet p) {
    board.clock().charge(costs.storeNs() + costs.copyNs(p.payloadLength));
  }

  /**
   * Whether the low-latency ring's DMA channel is free now. One packet per DMA keeps that channel
   * busy for a whole DMA start; while it is, small packets take the high-bandwidth ring, whose one
   * chained DMA per duty cycle carries every packet waiting (seed 000 §3.2: the rings are chosen to
   * balance latency and bandwidth). On a wall clock the channel is taken as free.
   */
  private boolean llIdle() {
    return !board.clock().isModelled()
        || board.dmac().channel(DMA_LL).doneAtNanos() - board.clock().nowNanos() <= 0;
  }

  /**
   * Moves waiting packets into the peer's rings as far as credits allow, then DMA-writes the
   * high-bandwidth bytes placed since the last DMA.
   *
   * @return packets moved from the wait queue
   */
  int flush() {
    int moved = 0;
    if (!queue.isEmpty()) {
      ensureSendSide();
      Pending e;
      while ((e = queue.peek()) != null) {
        if (!place(e.header, e.payload, 0, null, null)) {
          break;
        }
        queue.poll();
        free.add(e);
        moved++;
      }
    }
    dmaPlacedHb();
    return moved;
  }

  /** DMA-writes the high-bandwidth bytes placed and not yet sent. */
  private void dmaPlacedHb() {
    if (hbPlaced != hbSentPos) {
      dmaHb(hbPlaced, hbSentPos);
      hbPlaced = hbSentPos;
    }
  }

  private void writeHb(Packet h, ByteBuffer payload, int at, TcaContext ctx, SendWqe w, long pos) {
    int off = (int) (pos % Layout.HB_BYTES);
    int n = h.payloadLength;
    if (off + Packet.HEADER <= Layout.HB_BYTES) {
      h.encode(stage, ST_HB + off);
    } else {
      h.encode(headerScratch, 0);
      int first = Layout.HB_BYTES - off;
      stage.put(ST_HB + off, headerScratch, 0, first);
      stage.put(ST_HB, headerScratch, first, Packet.HEADER - first);
    }
    if (n == 0) {
      return;
    }
    // the payload, in two pieces if it wraps
    int p = (off + Packet.HEADER) % Layout.HB_BYTES;
    int first = Math.min(n, Layout.HB_BYTES - p);
    copyPayload(stage, ST_HB + p, first, payload, at, ctx, w, 0);
    if (first < n) {
      copyPayload(stage, ST_HB, n - first, payload, at, ctx, w, first);
    }
  }

  /** One chained DMA: the ring bytes [from, to) (two pieces if they wrap), then the send position. */
  private void dmaHb(long from, long to) {
    Dmac dmac = board.dmac();
    int off = (int) (from % Layout.HB_BYTES);
    int len = (int) (to - from);
    int first = Math.min(len, Layout.HB_BYTES - off);
    long descBase = hbDescriptors.address();
    stage.putLong(ST_HB_PSN, to);
    int i = 0;
    dmac.writeHostDescriptor(hbDescriptors, i, stageBase + ST_HB + off, remoteArea + Layout.HB_RING + off, first, 0, 0,
        DmaDescriptor.FLAG_CHAIN, descBase + (i + 1) * (long) DmaDescriptor.LENGTH);
    i++;
    if (first < len) {
      dmac.writeHostDescriptor(hbDescriptors, i, stageBase + ST_HB, remoteArea + Layout.HB_RING, len - first, 0, 0,
          DmaDescriptor.FLAG_CHAIN, descBase + (i + 1) * (long) DmaDescriptor.LENGTH);
      i++;
    }
    dmac.writeHostDescriptor(hbDescriptors, i, stageBase + ST_HB_PSN, remoteArea + Layout.HB_SEND_POS, 8, 0, 0, 0, -1);
    dmac.channel(DMA_HB).start(DescriptorMode.HOST, descBase);
  }

  // ================================================================== receive

  /** Told each packet taken from a ring, in sequence. */
  interface Sink {
    /**
     * @param ch the channel
     * @param p the header
     * @param payload holds the payload at {@code [at, at + payloadLength)}: the ring itself (or a
     *     scratch copy of a packet that wraps), valid during the call only
     * @param at index of the first payload byte
     */
    void onPacket(Channel ch, Packet p, ByteBuffer payload, int at);

    /**
     * The peer took and accepted an {@link Packet#F_ACK_REQ} packet (its write-back).
     *
     * @param ch the channel
     * @param qpn the sending QP
     * @param psn the packet's PSN
     * @param seq the packet's sequence number (the QP checks it is the latest transmission)
     */
    void onDelivered(Channel ch, int qpn, int psn, int seq);
  }

  /**
   * Takes the packets that arrived, in sequence, and hands each to {@code sink} where it lies in
   * the ring; then tells the peer its new credits (so the ring bytes stay put during the calls).
   *
   * @param into a header to decode into
   * @param scratch a buffer of at least {@link Layout#HB_BYTES} bytes for packets that wrap the ring
   * @param sink where packets go
   * @param budget most packets to take
   * @return packets taken
   */
  int poll(Packet into, ByteBuffer scratch, Sink sink, int budget) {
    int n = 0;
    while (n < budget) {
      long llPsn = TcaMallocPool.getLongAcquire(area, areaIndex + Layout.LL_SEND_PSN);
      long hbPos = TcaMallocPool.getLongAcquire(area, areaIndex + Layout.HB_SEND_POS);
      ByteBuffer payload = null;
      int at = 0;
      if (llPsn > llConsumed) {
        int slot = areaIndex + Layout.LL_RING + (int) (llConsumed % Layout.LL_SLOTS) * Layout.LL_SLOT;
        into.decode(area, slot);
        if (into.seq == expectedSeq) {
          if (into.payloadLength < 0 || into.payloadLength > Layout.LL_PAYLOAD) {
            throw new IllegalStateException("corrupt low-latency packet from node " + peer + ": " + into);
          }
          llConsumed++;
          payload = area;
          at = slot + Packet.HEADER;
        }
      }
      if (payload == null && hbPos > hbConsumedPos) {
        int off = (int) (hbConsumedPos % Layout.HB_BYTES);
        int ring = areaIndex + Layout.HB_RING;
        if (off + Packet.HEADER <= Layout.HB_BYTES) {
          into.decode(area, ring + off);
        } else {
          readHb(scratch, hbConsumedPos, Packet.HEADER);
          into.decode(scratch, 0);
        }
        if (into.seq - expectedSeq > 0) {
          // The expected packet went by the low-latency ring, whose DMA channel is not ordered
          // with the high-bandwidth one: its slot and index have not landed yet. Wait for them.
          break;
        }
        if (into.seq != expectedSeq) {
          throw new IllegalStateException("ring sequence broken from node " + peer + ": expected " + expectedSeq
              + ", found " + into);
        }
        if (into.payloadLength < 0 || into.payloadLength > Layout.HB_MAX_PAYLOAD) {
          throw new IllegalStateException("corrupt high-bandwidth packet from node " + peer + ": " + into);
        }
        int p = (off + Packet.HEADER) % Layout.HB_BYTES;
        if (p + into.payloadLength <= Layout.HB_BYTES) {
          payload = area;
          at = ring + p;
        } else {
          readHb(scratch, hbConsumedPos + Packet.HEADER, into.payloadLength);
          payload = scratch;
          at = 0;
        }
        hbConsumedPos += Layout.pad16(into.bytes());
      }
      if (payload == null) {
        break;
      }
      expectedSeq++;
      n++;
      board.clock().charge(costs.hostPollNs()); // found by its sequence word, taken
      if (into.opcode == Packet.DISCARDED) {
        int r = (int) into.value & (RECORDS - 1);
        if ((int) into.value - ackApplied >= 0) {
          recordQpn[r] = -1; // the peer did not accept it: its write-back does not acknowledge it
        }
      } else {
        sink.onPacket(this, into, payload, at);
      }
    }
    if (n > 0) {
      creditWords.putLong(0, llConsumed);
      creditWords.putLong(8, hbConsumedPos);
      creditWords.putLong(16, ((long) fence << 32) | (expectedSeq & 0xFFFFFFFFL));
      board.pio().write(remoteArea + Layout.LL_RECV_PSN, creditWords, 0, 24);
    }
    applyAcknowledgement(sink);
    return n;
  }

  /**
   * Applies the peer's write-back once this side has taken the peer's packets below its fence:
   * every packet of this side the peer took since is accepted unless a NAK or DISCARDED said
   * otherwise (those came first, below the fence).
   */
  private void applyAcknowledgement(Sink sink) {
    long word = TcaMallocPool.getLongAcquire(area, areaIndex + Layout.ACK_WORD);
    int taken = (int) word;
    int peerFence = (int) (word >>> 32);
    if (taken - ackApplied <= 0 || expectedSeq - peerFence < 0) {
      return;
    }
    for (int s = ackApplied; s != taken; s++) {
      int r = s & (RECORDS - 1);
      int qpn = recordQpn[r];
      if (qpn >= 0) {
        recordQpn[r] = -1;
        sink.onDelivered(this, qpn, recordPsn[r], s);
      }
    }
    ackApplied = taken;
  }

  /** Copies {@code len} ring bytes from position {@code pos} (wrapping) to scratch[0..len). */
  private void readHb(ByteBuffer scratch, long pos, int len) {
    int off = (int) (pos % Layout.HB_BYTES);
    int first = Math.min(len, Layout.HB_BYTES - off);
    int ring = areaIndex + Layout.HB_RING;
    scratch.put(0, area, ring + off, first);
    if (first < len) {
      scratch.put(first, area, ring, len - first);
    }
  }

  /** Returns the send side's pool memory and descriptors. */
  void release() {
    if (staging != null) {
      staging.free();
      hbDescriptors.free();
      staging = null;
    }
    if (llFirstDescriptor >= 0) {
      board.dmac().internalMemory().free(llFirstDescriptor, 2 * Layout.LL_SLOTS);
      llFirstDescriptor = -1;
    }
    queue.clear();
  }

  @Override
  public String toString() {
    return "Channel{" + board.nodeId() + "<->" + peer + ", llSent=" + llSent + ", hbSent=" + hbSentPos + ", seq="
        + nextSeq + ", expect=" + expectedSeq + '}';
  }
}
