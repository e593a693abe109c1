package io.github.verbs4j.ib;

import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FrameHeader;
import io.github.verbs4j.fabric.FrameReceiver;
import io.github.verbs4j.fabric.PeerListener;
import io.github.verbs4j.fabric.WritabilityListener;
import io.github.verbs4j.fabric.time.FabricTimer;
import io.github.verbs4j.fabric.time.NodeClock;
import io.github.verbs4j.ib.engine.PacketPort;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The HCA's port on a sim-fabric node: LID = node id, one packet per frame (tag {@link #TAG}),
 * the node's clock and scheduler, and the node's receiver, peer and writability upcalls forwarded
 * to the device. Works the same over the local (threaded or deterministic) and netty fabrics.
 *
 * <p>Buffer ownership: {@link #transmit} hands the packet to {@link FabricNode#send}, which owns it
 * from then on; a received frame's payload is handed to the device, which releases it.
 */
public final class FabricPacketPort implements PacketPort, FrameReceiver, PeerListener, WritabilityListener {
  /** The frame tag of HCA packets (virtual lane 0, IBA local). */
  public static final int TAG = 0x1B00;

  private final FabricNode node;
  private final NodeClock clock;
  private volatile Receiver receiver;

  /** @param node the fabric node (owned by the caller, closed by it) */
  public FabricPacketPort(FabricNode node) {
    this.node = node;
    this.clock = node.clock();
  }

  /** @return the fabric node */
  public FabricNode node() {
    return node;
  }

  @Override
  public int localLid() {
    return node.nodeId();
  }

  @Override
  public ByteBufAllocator alloc() {
    return node.alloc();
  }

  @Override
  public boolean transmit(int dlid, ByteBuf packet) {
    return node.send(dlid, TAG, packet);
  }

  @Override
  public boolean isWritable(int dlid) {
    return node.isWritable(dlid);
  }

  @Override
  public long nowNanos() {
    return clock.nowNanos();
  }

  @Override
  public boolean modelledTime() {
    return clock.isModelled();
  }

  @Override
  public void charge(long nanos) {
    clock.charge(nanos);
  }

  @Override
  public Timer schedule(long delayNanos, Runnable task) {
    Runnable run = task;
    if (clock.isModelled()) {
      // A modelled clock moves only with frames and charges; a timer that fires means its time
      // has come, so the clock is at least there (the deterministic loop does this itself).
      long at = clock.nowNanos() + delayNanos;
      run = () -> {
        clock.advanceTo(at);
        task.run();
      };
    }
    FabricTimer t = node.scheduler().schedule(delayNanos, run);
    return t::cancel;
  }

  @Override
  public void bind(Receiver r) {
    this.receiver = r;
    node.setReceiver(this);
    node.addPeerListener(this);
    node.addWritabilityListener(this);
  }

  @Override
  public void onFrame(FrameHeader header, ByteBuf payload) {
    Receiver r = receiver;
    if (r == null) {
      payload.release();
      return;
    }
    r.onPacket(header.src(), payload);
  }

  @Override
  public void onPeerDown(int nodeId) {
    Receiver r = receiver;
    if (r != null) {
      r.onPeerDown(nodeId);
    }
  }

  @Override
  public void onWritabilityChanged(int dstNode, boolean writable) {
    Receiver r = receiver;
    if (writable && r != null) {
      r.onWritable(dstNode);
    }
  }

  @Override
  public void close() {
    receiver = null;
    node.removePeerListener(this);
    node.removeWritabilityListener(this);
    node.setReceiver(null);
  }
}
