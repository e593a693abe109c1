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
 * <p>Thread-safe: {@link #traverse}, {@link #advance} and {@link #hop} lock each link as the frame
 * crosses it, so frames take a link in the order their senders get that link's lock (the in-JVM
 * threaded fabric calls {@code traverse} from senders; the netty fabric calls {@code advance} for
 * the links a process models — its own outgoing links, and a switch's link to it; the
 * deterministic fabric calls {@code hop} from its single thread, one event per hop in
 * modelled-time order, which makes queueing exact). One lock for the whole model made a thousand
 * in-JVM nodes queue on it: on a crowded host a sender preempted while holding it stopped every
 * other sender, whatever links they used.
 */
public final class LinkModel {
  private static final int DEPTH_RING = 256;

  /** Mutable state of one directed link, guarded by its own monitor. */
  private static final class LinkState {
    volatile LinkParams params;
    long busyUntil;
    long queueingNanos;
    long frames;
    long bytes;
    int depth;
    // End times of frames on or queued for the link. They never decrease (each frame starts after
    // the previous one ends), so the ones that have finished are always at the head.
    final long[] ends = new long[DEPTH_RING];
    int head;
    int size;
  }

  private final LinkParams defaults;
  /** Grows under the model's lock; a link's state, once made, stays. */
  private volatile LinkState[] links;
  private volatile boolean overrides;

  /**
   * @param defaults parameters of every link not set by {@link #setParams}
   * @param links initial number of link ids (grows on demand)
   */
  public LinkModel(LinkParams defaults, int links) {
    this.defaults = defaults;
    this.links = new LinkState[Math.max(links, 4)];
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
  public void setParams(int linkId, LinkParams p) {
    state(linkId).params = p;
    overrides = true;
  }

  /**
   * @param linkId a link
   * @return its parameters
   */
  public LinkParams params(int linkId) {
    return paramsOf(state(linkId));
  }

  private LinkParams paramsOf(LinkState st) {
    LinkParams p = st.params;
    return p != null ? p : defaults;
  }

  private LinkState state(int linkId) {
    LinkState[] a = links;
    LinkState st = linkId < a.length ? a[linkId] : null;
    return st != null ? st : newState(linkId);
  }

  private synchronized LinkState newState(int linkId) {
    LinkState[] a = links;
    if (linkId >= a.length) {
      a = Arrays.copyOf(a, Math.max(linkId + 1, a.length * 2));
    }
    LinkState st = a[linkId];
    if (st == null) {
      st = a[linkId] = new LinkState();
    }
    links = a; // published after the state is in it
    return st;
  }

  /**
   * The smallest MTU on a route.
   *
   * @param route a route
   * @return bytes ({@link LinkParams#mtu()} of the default for a 0-hop route)
   */
  public int mtu(Route route) {
    if (!overrides) {
      return defaults.mtu();
    }
    int m = defaults.mtu();
    for (int i = 0; i < route.hops(); i++) {
      m = Math.min(m, paramsOf(state(route.link(i))).mtu());
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
  public long traverse(Route route, int payloadBytes, long sendTime) {
    return advance(route, 0, route.hops(), sendTime, payloadBytes);
  }

  /**
   * Moves a frame over hops {@code from .. to-1} of its route, each under its link's lock (the netty fabric
   * models each link in the process that sees all of its traffic, so a frame may cross its route
   * in several pieces).
   *
   * @param route the route
   * @param from the first hop to model (its head reaches that link at {@code head})
   * @param to one past the last hop to model, at most {@code route.hops()}
   * @param head when the head reaches link {@code from} (the send time for {@code from = 0})
   * @param payloadBytes payload length
   * @return the head's time at link {@code to} if {@code to < route.hops()}, else the modelled
   *     arrival (the head's time at the destination plus the slowest link's serialisation of the
   *     whole route)
   */
  public long advance(Route route, int from, int to, long head, int payloadBytes) {
    int n = route.hops();
    if (n == 0) {
      return head;
    }
    long wire = (long) payloadBytes + FrameHeader.LENGTH;
    for (int i = from; i < to; i++) {
      LinkState st = state(route.link(i));
      LinkParams p = paramsOf(st);
      long start;
      synchronized (st) {
        start = acquire(st, head, p.serializationNanos(wire), wire);
      }
      head = start + p.latencyNs() + (i < n - 1 ? p.forwardNs() : 0);
    }
    if (to < n) {
      return head;
    }
    if (!overrides) {
      return head + defaults.serializationNanos(wire);
    }
    long maxSer = 0;
    for (int i = 0; i < n; i++) {
      maxSer = Math.max(maxSer, paramsOf(state(route.link(i))).serializationNanos(wire));
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
  public long hop(int linkId, long headTime, int payloadBytes, boolean last) {
    long wire = (long) payloadBytes + FrameHeader.LENGTH;
    LinkState st = state(linkId);
    LinkParams p = paramsOf(st);
    long start;
    synchronized (st) {
      start = acquire(st, headTime, p.serializationNanos(wire), wire);
    }
    return start + p.latencyNs() + (last ? 0 : p.forwardNs());
  }

  /**
   * The serialisation time of the slowest link of a route for a frame.
   *
   * @param route the route
   * @param payloadBytes payload length
   * @return nanoseconds (0 for a 0-hop route)
   */
  public long maxSerialization(Route route, int payloadBytes) {
    long wire = (long) payloadBytes + FrameHeader.LENGTH;
    long m = 0;
    for (int i = 0; i < route.hops(); i++) {
      m = Math.max(m, paramsOf(state(route.link(i))).serializationNanos(wire));
    }
    return m;
  }

  private static long acquire(LinkState st, long head, long ser, long wire) {
    long start = Math.max(head, st.busyUntil);
    st.queueingNanos += start - head;
    st.busyUntil = start + ser;
    st.frames++;
    st.bytes += wire;
    // Queue depth in modelled time: frames still on or waiting for the link when this one arrives.
    long[] ends = st.ends;
    while (st.size > 0 && ends[st.head] <= head) {
      st.head = (st.head + 1) % DEPTH_RING;
      st.size--;
    }
    st.depth = st.size;
    if (st.size == DEPTH_RING) {
      st.head = (st.head + 1) % DEPTH_RING;
      st.size--;
    }
    ends[(st.head + st.size) % DEPTH_RING] = start + ser;
    st.size++;
    return start;
  }

  /**
   * @param linkId a link
   * @return the modelled time until which the link is busy
   */
  public long busyUntil(int linkId) {
    LinkState st = state(linkId);
    synchronized (st) {
      return st.busyUntil;
    }
  }

  /**
   * @param linkId a link
   * @return total modelled queueing on the link, ns
   */
  public long queueingNanos(int linkId) {
    LinkState st = state(linkId);
    synchronized (st) {
      return st.queueingNanos;
    }
  }

  /**
   * @param linkId a link
   * @return frames that crossed (or are crossing) the link
   */
  public long frames(int linkId) {
    LinkState st = state(linkId);
    synchronized (st) {
      return st.frames;
    }
  }

  /**
   * @param linkId a link
   * @return wire bytes that crossed the link
   */
  public long bytes(int linkId) {
    LinkState st = state(linkId);
    synchronized (st) {
      return st.bytes;
    }
  }

  /**
   * @param linkId a link
   * @return frames on or queued for the link (modelled) when the last frame reached it (at most
   *     255)
   */
  public int queueDepth(int linkId) {
    LinkState st = state(linkId);
    synchronized (st) {
      return st.depth;
    }
  }
}
