package io.github.verbs4j.fabric.netty;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.FabricException;
import io.github.verbs4j.fabric.FabricMetrics;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.FrameHeader;
import io.github.verbs4j.fabric.JobChannel;
import io.github.verbs4j.fabric.shm.ShmLinks;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link NettyNode}'s shared-memory part ({@code verbs.fabric.shm}): it maps the rings of the
 * peers on this host, checks the frames that come out of this node's ring, rings a sleeping peer's
 * doorbell on its socket, and watches a full ring for room (the ring has no writability event of its
 * own). Which frames take a ring rather than the socket is the node's choice.
 */
final class NodeShm {
  private static final Logger LOG = LoggerFactory.getLogger(NodeShm.class);
  private static final String KEY = "verbs4j.fabric.shm/";
  /** How often a full ring is looked at again, for the writability listeners, ns. */
  private static final long RECHECK_NANOS = 50_000;

  private final NettyNode node;
  private final FabricOptions options;
  private final FabricMetrics metrics;
  private final EventLoop loop;
  private final NettyMembership members;
  private final int mtu;
  private SharedIoEventLoop shared; // the loop a polling caller drives, or null
  private volatile ShmLinks links; // set by link, before open returns
  private AtomicIntegerArray watched; // 1 while a full ring's peer is watched for room

  NodeShm(NettyNode node, FabricOptions options, FabricMetrics metrics, EventLoop loop, NettyMembership members) {
    this.node = node;
    this.options = options;
    this.metrics = metrics;
    this.loop = loop;
    this.members = members;
    this.mtu = options.mtu();
  }

  /**
   * Publishes this node's ring (or {@code off}) in the job's key-value store.
   *
   * @param group the node's event loop: a {@link SharedIoEventLoop} lets a polling caller read the ring
   * @return this node's rings, or null with {@code verbs.fabric.shm=off} or where none can be made
   */
  ShmLinks open(EventLoopGroup group) {
    ShmLinks s = ShmLinks.open(options, node.nodeId(), loop, this::onFrame);
    members.job().kvPut(KEY + node.nodeId(), (s == null ? "off" : s.address()).getBytes(StandardCharsets.UTF_8));
    if (s == null) {
      return null;
    }
    watched = new AtomicIntegerArray(options.size() + 1);
    links = s;
    if (group instanceof SharedIoEventLoop sl) {
      sl.pollAlso(s::pollInline, s::endInline); // a polling caller reads the ring itself
      shared = sl;
    }
    return s;
  }

  /**
   * After {@link #open} returned rings: maps the ring of every peer on this host.
   *
   * @param deadline of the join, {@link System#nanoTime()}
   * @throws FabricException with {@code verbs.fabric.shm=required} if a peer's ring does not map
   */
  void attachPeers(long deadline) {
    ShmLinks s = links;
    String mode = options.get(FabricOptions.SHM);
    JobChannel job = members.job();
    int linked = 0;
    for (int n = 1; n <= options.size(); n++) {
      if (n == node.nodeId()) {
        continue;
      }
      long left = Math.max(1, deadline - System.nanoTime());
      String a = new String(job.kvGet(KEY + n, Duration.ofNanos(left)), StandardCharsets.UTF_8);
      if (s.attach(n, a)) {
        linked++;
      } else if ("required".equals(mode)) {
        throw new FabricException("verbs.fabric.shm=required: node " + n + " (rank " + (n - 1) + ") has no shared-memory ring this process can map ("
            + (a.equals("off") ? "it runs with verbs.fabric.shm=off" : "another host, or its ring does not map") + ")");
      }
    }
    if (linked == options.size() - 1 && shared != null) {
      shared.extraInputCarriesAll();
    }
    LOG.debug("node {}: shared-memory rings to {} of {} peers ({})", node.nodeId(), linked, options.size() - 1, s.file());
  }

  /** Fabric thread: a frame out of this node's ring; a well-formed one goes to the node. */
  private void onFrame(ByteBuf frame) {
    DropReason bad = FrameHeader.check(frame, 0, mtu, node.nodeId());
    int type = bad == null ? frame.getUnsignedByte(FrameHeader.TYPE_OFFSET) : 0;
    if (type == FrameHeader.TYPE_DOORBELL || type == FrameHeader.TYPE_RECEIPT) {
      bad = DropReason.BAD_TYPE; // doorbells and receipts come on sockets only
    }
    if (bad == null && frame.readableBytes() != FrameHeader.LENGTH + FrameHeader.length(frame, 0)) {
      bad = DropReason.TRUNCATED;
    }
    if (bad != null) {
      metrics.drop(bad, Math.max(0, frame.readableBytes() - FrameHeader.LENGTH));
      frame.release();
      return;
    }
    node.receiveFromRing(frame);
  }

  /**
   * Wakes a peer whose ring poller sleeps: a header-only {@link FrameHeader#TYPE_DOORBELL} frame on
   * its socket (one system call, and only when the poller sleeps).
   */
  void ringDoorbell(int peer) {
    Peer p = members.peer(peer);
    Channel ch = p == null ? null : p.channel;
    if (ch == null || !ch.isActive()) {
      return; // the poller wakes by itself within its sleep limit
    }
    ByteBuf bell = ch.alloc().directBuffer(FrameHeader.LENGTH);
    FrameHeader.write(bell, FrameHeader.TYPE_DOORBELL, 0, 0, node.nodeId(), peer, 0, 0, 0, 0);
    ch.writeAndFlush(bell, ch.voidPromise());
  }

  /**
   * A peer's ring is too full to write: looks again every {@link #RECHECK_NANOS} on the event loop
   * and tells the writability listeners when it has room.
   *
   * @param peer a linked peer
   * @param listening whether anyone listens for writability (else nothing is watched)
   */
  void watch(int peer, boolean listening) {
    if (!listening || !watched.compareAndSet(peer, 0, 1)) {
      return;
    }
    loop.schedule(() -> recheck(peer), RECHECK_NANOS, TimeUnit.NANOSECONDS);
  }

  private void recheck(int peer) {
    ShmLinks s = links;
    if (node.isOpen() && s != null && s.linked(peer) && !s.isWritable(peer)) {
      loop.schedule(() -> recheck(peer), RECHECK_NANOS, TimeUnit.NANOSECONDS);
      return;
    }
    watched.set(peer, 0);
    node.connectionWritability(peer, true);
  }
}
