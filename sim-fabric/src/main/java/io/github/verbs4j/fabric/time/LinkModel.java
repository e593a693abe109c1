package io.github.verbs4j.fabric.time;

import io.github.verbs4j.fabric.FrameHeader;
import io.github.verbs4j.fabric.topo.Route;
import java.util.Arrays;

/**
 * Modelled time of frames on links: latency, bandwidth, MTU per directed link, and queueing when a
 * link is busy (frames that share a link are serialised on it). Cut-through: a frame's head moves
 * on as soon as it has crossed a link; the link stays busy while the whole frame passes.
 *
 * <p>For a frame of {@code B = 32 + payload} bytes sent at {@code t0} over links {@code l1..ln}
 * ({@code ser(l) = ceil(B * 1000 / bandwidthMbs(l))}):
 *
 * <pre>
 *   h1 = t0
 *   start_i = max(h_i, busyUntil(l_i))        queueing_i = start_i - h_i
 *   busyUntil(l_i) = start_i + ser(l_i)
 *   h_{i+1} = start_i + latency(l_i) + forward(l_i)      (i &lt; n)
 *   arrival = start_n + latency(l_n) + max_i ser(l_i)
 * </pre>
 *
 * so without contention {@code arrival = t0 + Σ latency + (n-1) × forward + B / bandwidth}, and with
 * it each wait on a busy link adds its queueing. A node sending to itself: {@code arrival = t0}.
 *
 * <p>Thread-safe: {@link #traverse} and {@link #hop} lock the model (the in-JVM threaded and netty
 * fabrics call {@code traverse} from senders; the deterministic fabric calls {@code hop} from its
 * single thread, one event per hop in modelled-time order, which makes queueing exact).
 */
public final class LinkModel {
  private static final int DEPTH_RING = 256;

  private final LinkParams defaults;
  private LinkParams[] params;
  private long[] busyUntil;
  private long[] queueingNanos;
  private long[] frames;
  private long[] bytes;
  private long[][] inFlightEnds;
  private int[] depth;

  /**
   * @param defaults parameters of every link not set by {@link #setParams}
   * @param links initial number of link ids (grows on demand)
   */
  public LinkModel(LinkParams defaults, int links) {
    this.defaults = defaults;
    int n = Math.max(links, 4);
    params = new LinkParams[n];
    busyUntil = new long[n];
    queueingNanos = new long[n];
    frames = new long[n];
    bytes = new long[n];
    inFlightEnds = new long[n][];
    depth = new int[n];
  }

  /** @return the default parameters */
  public LinkParams defaults() {
    return defaults;
  }

  /**
   * Overrides one link's parameters.
   *
   * @param linkId the link
   * @param p its parameters
   */
  public synchronized void setParams(int linkId, LinkParams p) {
    ensure(linkId);
    params[linkId] = p;
  }

  /**
   * @param linkId a link
   * @return its parameters
   */
  public synchronized LinkParams params(int linkId) {
    ensure(linkId);
    LinkParams p = params[linkId];
    return p != null ? p : defaults;
  }

  private void ensure(int linkId) {
    if (linkId >= busyUntil.length) {
      int n = Math.max(linkId + 1, busyUntil.length * 2);
      params = Arrays.copyOf(params, n);
      busyUntil = Arrays.copyOf(busyUntil, n);
      queueingNanos = Arrays.copyOf(queueingNanos, n);
      frames = Arrays.copyOf(frames, n);
      bytes = Arrays.copyOf(bytes, n);
      inFlightEnds = Arrays.copyOf(inFlightEnds, n);
      depth = Arrays.copyOf(depth, n);
    }
  }

  /**
   * The smallest MTU on a route.
   *
   * @param route a route
   * @return bytes ({@link LinkParams#mtu()} of the default for a 0-hop route)
   */
  public synchronized int mtu(Route route) {
    int m = defaults.mtu();
    for (int i = 0; i < route.hops(); i++) {
      LinkParams p = params(route.link(i));
      m = Math.min(m, p.mtu());
    }
    return m;
  }

  /**
   * Sends a frame along a whole route at once and returns its arrival time.
   *
   * @param route the route
   * @param payloadBytes payload length
   * @param sendTime modelled send time
   * @return modelled arrival time
   */
  public synchronized long traverse(Route route, int payloadBytes, long sendTime) {
    int n = route.hops();
    if (n == 0) {
      return sendTime;
    }
    long wire = (long) payloadBytes + FrameHeader.LENGTH;
    long maxSer = 0;
    long head = sendTime;
    for (int i = 0; i < n; i++) {
      int l = route.link(i);
      LinkParams p = params(l);
      long ser = p.serializationNanos(wire);
      maxSer = Math.max(maxSer, ser);
      long start = acquire(l, head, ser, wire);
      head = start + p.latencyNs() + (i < n - 1 ? p.forwardNs() : 0);
    }
    return head + maxSer;
  }

  /**
   * One hop of a frame whose head reaches {@code linkId} at {@code headTime}: queues on the link if
   * it is busy and returns when the head reaches the far end (plus forwarding if not the last hop).
   *
   * @param linkId the link
   * @param headTime when the head reaches the link
   * @param payloadBytes payload length
   * @param last true if the far end is the destination
   * @return the head's time at the next link (or at the destination if {@code last})
   */
  public synchronized long hop(int linkId, long headTime, int payloadBytes, boolean last) {
    long wire = (long) payloadBytes + FrameHeader.LENGTH;
    LinkParams p = params(linkId);
    long start = acquire(linkId, headTime, p.serializationNanos(wire), wire);
    return start + p.latencyNs() + (last ? 0 : p.forwardNs());
  }

  /**
   * The serialisation time of the slowest link of a route for a frame.
   *
   * @param route the route
   * @param payloadBytes payload length
   * @return nanoseconds (0 for a 0-hop route)
   */
  public synchronized long maxSerialization(Route route, int payloadBytes) {
    long wire = (long) payloadBytes + FrameHeader.LENGTH;
    long m = 0;
    for (int i = 0; i < route.hops(); i++) {
      m = Math.max(m, params(route.link(i)).serializationNanos(wire));
    }
    return m;
  }

  private long acquire(int l, long head, long ser, long wire) {
    ensure(l);
    long start = Math.max(head, busyUntil[l]);
    queueingNanos[l] += start - head;
    busyUntil[l] = start + ser;
    frames[l]++;
    bytes[l] += wire;
    // Queue depth in modelled time: frames still on or waiting for the link when this one arrives.
    long[] ring = inFlightEnds[l];
    if (ring == null) {
      ring = inFlightEnds[l] = new long[DEPTH_RING];
    }
    int d = 0;
    for (long end : ring) {
      if (end > head) {
        d++;
      }
    }
    depth[l] = d;
    ring[(int) (frames[l] % DEPTH_RING)] = start + ser;
    return start;
  }

  /**
   * @param linkId a link
   * @return the modelled time until which the link is busy
   */
  public synchronized long busyUntil(int linkId) {
    ensure(linkId);
    return busyUntil[linkId];
  }

  /**
   * @param linkId a link
   * @return total modelled queueing on the link, ns
   */
  public synchronized long queueingNanos(int linkId) {
    ensure(linkId);
    return queueingNanos[linkId];
  }

  /**
   * @param linkId a link
   * @return frames that crossed (or are crossing) the link
   */
  public synchronized long frames(int linkId) {
    ensure(linkId);
    return frames[linkId];
  }

  /**
   * @param linkId a link
   * @return wire bytes that crossed the link
   */
  public synchronized long bytes(int linkId) {
    ensure(linkId);
    return bytes[linkId];
  }

  /**
   * @param linkId a link
   * @return frames on or queued for the link (modelled) when the last frame reached it, including
   *     that frame's predecessors only
   */
  public synchronized int queueDepth(int linkId) {
    ensure(linkId);
    return depth[linkId];
  }
}
