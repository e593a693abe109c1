package io.github.verbs4j.verbs.spi;

/**
 * The verbs objects whose footprint a {@link MemoryAccount} adds up, one value of the {@code
 * component} tag of the {@code verbs4j.memory.bytes} meter family.
 */
public enum MemoryComponent {
  /** The device context (ibv_context): driver context and its doorbell (UAR) page. */
  CONTEXT("context"),
  /** Protection domains. */
  PD("pd"),
  /** Memory-region metadata (the registered memory itself is the application's). */
  MR("mr"),
  /** Completion queues with their CQE buffers. */
  CQ("cq"),
  /** RC, UC and UD queue pairs with their send and receive queues. */
  QP("qp"),
  /** Shared receive queues with their WQE buffers. */
  SRQ("srq"),
  /** Address handles. */
  AH("ah"),
  /** DC initiators with their send queues. */
  DCI("dci"),
  /** DC targets (their receives use an SRQ). */
  DCT("dct"),
  /**
   * Per-peer state of a message-passing layer over verbs (its peer and connection records and rank
   * table), counted by that layer through {@link AbstractContext#memoryAccount()}.
   */
  MP_PEERS("mp-peers"),
  /** Eager rings, receive pools and control buffers of a message-passing layer, counted by it. */
  MP_BUFFERS("mp-buffers");

  private final String tag;

  MemoryComponent(String tag) {
    this.tag = tag;
  }

  /**
   * @return the value of the meter's {@code component} tag
   */
  public String tag() {
    return tag;
  }
}
