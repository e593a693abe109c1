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
 * <p>Sending: packets are queued and {@link #flush()} moves as many as the credits allow; credits
 * come from the receive PSN the peer writes back into this node's receive area for it. Receiving:
 * {@link #poll} reads the send PSNs the peer wrote into this node's area, takes packets in
 * sequence, and writes the receive PSNs back to the peer by PIO.
 *
 * <p>Used by the context's proxy thread only.
 */
final class Channel {
  private static final Logger LOG = LoggerFactory.getLogger(Channel.class);
  private static final int DMA_LL = 0;
  private static final int DMA_HB = 1;

  private final Peach2Board board;
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
  private int nextSeq;
  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  private final ArrayDeque<Pending> free = new ArrayDeque<>();

  // ---- receive side
  private long llConsumed;
  private long hbConsumedPos;
  private int expectedSeq;
  private final ByteBuffer creditWords = ByteBuffer.allocateDirect(16).order(ByteOrder.LITTLE_ENDIAN);

  // staging layout: LL slots, LL PSN words (16 apart), HB mirror, HB PSN word at +8 mod 16
  private static final int ST_LL = 0;
  private static final int ST_LL_PSN = ST_LL + Layout.LL_SLOTS * Layout.LL_SLOT;
  private static final int ST_HB = ST_LL_PSN + Layout.LL_SLOTS * 16;
  private static final int ST_HB_PSN = ST_HB + Layout.HB_BYTES + 8;
  private static final int STAGING = ST_HB_PSN + 8;

  Channel(Peach2Board board, int peer, ByteBuffer area, int areaIndex, int llMax) {
    this.board = board;
    this.peer = peer;
    this.area = area;
    this.areaIndex = areaIndex;
    this.remoteArea = Layout.area(board.window().hostBase(peer), board.nodeId());
    this.llMax = llMax;
  }

  // ================================================================== send

  /** A packet waiting for credits. */
  private static final class Pending {
    final Packet header = new Packet();
    ByteBuffer payload = ByteBuffer.allocate(0);
  }

  /**
   * Queues a packet. The payload bytes are copied now.
   *
   * @param p the header (copied; seq is assigned here)
   * @param payload payload source, or null
   * @param at first payload byte (absolute)
   */
  void send(Packet p, ByteBuffer payload, int at) {
    Pending e = free.poll();
    if (e == null) {
      e = new Pending();
    }
    Packet h = e.header;
    h.opcode = p.opcode;
    h.flags = p.flags;
    h.payloadLength = p.payloadLength;
    h.srcQpn = p.srcQpn;
    h.dstQpn = p.dstQpn;
    h.psn = p.psn;
    h.length = p.length;
    h.imm = p.imm;
    h.addr = p.addr;
    h.rkey = p.rkey;
    h.value = p.value;
    h.aux = p.aux;
    int n = p.payloadLength;
    if (e.payload.capacity() < n) {
      e.payload = ByteBuffer.allocate(Math.max(n, 256));
    }
    if (n > 0) {
      e.payload.put(0, payload, at, n);
    }
    queue.add(e);
    if (LOG.isTraceEnabled()) {
      LOG.trace("node {} tx to {}: {}", board.nodeId(), peer, h);
    }
  }

  /** @return whether packets wait for credits */
  boolean hasQueued() {
    return !queue.isEmpty();
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
   * Moves queued packets into the peer's rings as far as credits allow.
   *
   * @return packets moved
   */
  int flush() {
    if (queue.isEmpty()) {
      return 0;
    }
    ensureSendSide();
    long llCredit = TcaMallocPool.getLongAcquire(area, areaIndex + Layout.LL_RECV_PSN);
    long hbCredit = TcaMallocPool.getLongAcquire(area, areaIndex + Layout.HB_RECV_POS);
    int moved = 0;
    long hbStart = hbSentPos;
    Pending e;
    while ((e = queue.peek()) != null) {
      Packet h = e.header;
      boolean small = h.payloadLength <= llMax && llFirstDescriptor >= 0;
      if (small && llSent - llCredit < Layout.LL_SLOTS && hbSentPos == hbStart) {
        // low-latency ring: one DMA per packet (only while no HB packets of this flush wait,
        // so that the sequence stays in ring order)
        int slot = (int) (llSent % Layout.LL_SLOTS);
        int at = ST_LL + slot * Layout.LL_SLOT;
        h.seq = nextSeq++;
        h.encode(stage, at);
        if (h.payloadLength > 0) {
          stage.put(at + Packet.HEADER, e.payload, 0, h.payloadLength);
        }
        llSent++;
        stage.putLong(ST_LL_PSN + slot * 16, llSent);
        board.dmac().channel(DMA_LL).start(DescriptorMode.INTERNAL, llFirstDescriptor + 2L * slot);
      } else {
        int need = Layout.pad16(h.bytes());
        if (Layout.HB_BYTES - (hbSentPos - hbCredit) < need) {
          break;
        }
        h.seq = nextSeq++;
        writeHb(h, e.payload, hbSentPos);
        hbSentPos += need;
        if (small) {
          // an LL-sized packet went to the HB ring: send this batch now so that later LL packets follow it
          dmaHb(hbStart, hbSentPos);
          hbStart = hbSentPos;
        }
      }
      queue.poll();
      free.add(e);
      moved++;
    }
    if (hbSentPos != hbStart) {
      dmaHb(hbStart, hbSentPos);
    }
    return moved;
  }

  private void writeHb(Packet h, ByteBuffer payload, long pos) {
    int off = (int) (pos % Layout.HB_BYTES);
    int bytes = h.bytes();
    if (off + bytes <= Layout.HB_BYTES) {
      h.encode(stage, ST_HB + off);
      if (h.payloadLength > 0) {
        stage.put(ST_HB + off + Packet.HEADER, payload, 0, h.payloadLength);
      }
      return;
    }
    // the packet wraps: build it in a scratch buffer and copy the two pieces
    ByteBuffer tmp = ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
    h.encode(tmp, 0);
    tmp.put(Packet.HEADER, payload, 0, h.payloadLength);
    int first = Layout.HB_BYTES - off;
    stage.put(ST_HB + off, tmp, 0, first);
    stage.put(ST_HB, tmp, first, bytes - first);
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
     * @param payload the payload (index 0..payloadLength), valid during the call
     */
    void onPacket(Channel ch, Packet p, ByteBuffer payload);
  }

  /**
   * Takes the packets that arrived, in sequence, and hands each to {@code sink}; then tells the
   * peer its new credits.
   *
   * @param into a header to decode into
   * @param scratch a buffer of at least {@link Layout#HB_BYTES} bytes for payloads
   * @param sink where packets go
   * @param budget most packets to take
   * @return packets taken
   */
  int poll(Packet into, ByteBuffer scratch, Sink sink, int budget) {
    int n = 0;
    while (n < budget) {
      long llPsn = TcaMallocPool.getLongAcquire(area, areaIndex + Layout.LL_SEND_PSN);
      long hbPos = TcaMallocPool.getLongAcquire(area, areaIndex + Layout.HB_SEND_POS);
      boolean taken = false;
      if (llPsn > llConsumed) {
        int at = areaIndex + Layout.LL_RING + (int) (llConsumed % Layout.LL_SLOTS) * Layout.LL_SLOT;
        into.decode(area, at);
        if (into.seq == expectedSeq) {
          if (into.payloadLength < 0 || into.payloadLength > Layout.LL_PAYLOAD) {
            throw new IllegalStateException("corrupt low-latency packet from node " + peer + ": " + into);
          }
          scratch.put(0, area, at + Packet.HEADER, into.payloadLength);
          llConsumed++;
          taken = true;
        }
      }
      if (!taken && hbPos > hbConsumedPos) {
        readHb(scratch, hbConsumedPos, Packet.HEADER);
        into.decode(scratch, 0);
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
        readHb(scratch, hbConsumedPos + Packet.HEADER, into.payloadLength);
        hbConsumedPos += Layout.pad16(into.bytes());
        taken = true;
      }
      if (!taken) {
        break;
      }
      expectedSeq++;
      n++;
      sink.onPacket(this, into, scratch);
    }
    if (n > 0) {
      creditWords.putLong(0, llConsumed);
      creditWords.putLong(8, hbConsumedPos);
      board.pio().write(remoteArea + Layout.LL_RECV_PSN, creditWords, 0, 16);
    }
    return n;
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
