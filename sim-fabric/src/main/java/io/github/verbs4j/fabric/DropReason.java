package io.github.verbs4j.fabric;

/**
 * Why the fabric dropped a frame. Every drop is counted in {@code verbs4j.fabric.drops} (frames) and
 * {@code verbs4j.fabric.dropped.bytes} with tag {@code reason=}{@link #tag()}.
 */
public enum DropReason {
  /** The destination node id is not in the directory. */
  UNKNOWN_NODE("unknown_node"),
  /** The destination node is down (closed, killed, or lost its heartbeat). */
  NODE_DOWN("node_down"),
  /** A link on the route is down (fault injection). */
  LINK_DOWN("link_down"),
  /** Dropped by fault injection (rate or script). */
  FAULT_DROP("fault_drop"),
  /**
   * Fault injection picked the frame for corruption, but its payload carries no check of its own
   * ({@link FrameHeader#FLAG_UNCHECKED}): lost instead of corrupted, so corruption is never silent.
   */
  UNCHECKED_CORRUPT("unchecked_corrupt"),
  /** The payload exceeds the MTU of a link on the route. */
  MTU("mtu"),
  /** The sender kept sending past the back-pressure hard limit. */
  BACKPRESSURE("backpressure"),
  /** The sending or receiving node is closed. */
  CLOSED("closed"),
  /** The destination has no receiver set. */
  NO_RECEIVER("no_receiver"),
  /** The receiver threw. */
  RECEIVER_ERROR("receiver_error"),
  /** Decoder: the version byte is not {@link FrameHeader#VERSION}. */
  BAD_VERSION("bad_version"),
  /** Decoder: the type byte is unknown. */
  BAD_TYPE("bad_type"),
  /** Decoder, or {@code send}: flag bits outside {@link FrameHeader#FLAGS_DEFINED}, or reserved bits, are set. */
  BAD_FLAGS("bad_flags"),
  /** Decoder: the length exceeds the fabric MTU. */
  TOO_LONG("too_long"),
  /** Decoder: source or destination node id is 0. */
  BAD_NODE("bad_node"),
  /** Decoder: the destination is not this node. */
  MISROUTED("misrouted"),
  /** Decoder: arrival time before send time. */
  BAD_TIME("bad_time"),
  /** Decoder: the connection closed in the middle of a frame. */
  TRUNCATED("truncated"),
  /**
   * Receive side: the frame's source node is neither the authenticated peer of the connection it
   * came on nor a node that may relay it (an intermediate board of its route).
   */
  SPOOFED_SOURCE("spoofed_source"),
  /** Receive side: the provider's cheap checks on arrival (length, header sanity) failed. */
  MALFORMED("malformed"),
  /**
   * Receive side: the frame's source already holds its share of the receiver's inbound queue
   * ({@link InboundShares}): one peer cannot fill the queue and starve the others.
   */
  SOURCE_SHARE("source_share");

  private final String tag;

  DropReason(String tag) {
    this.tag = tag;
  }

  /** @return the metric tag value */
  public String tag() {
    return tag;
  }
}
