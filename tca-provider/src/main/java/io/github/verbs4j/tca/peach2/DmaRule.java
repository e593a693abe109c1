package io.github.verbs4j.tca.peach2;

/** The hardware rules a DMA must obey (seed 000 §2.4) and the controller's own checks. */
public enum DmaRule {
  /** Source and destination addresses must be 4-byte aligned. */
  ALIGNMENT("misaligned"),
  /** The low 4 bits of source and destination must be equal. */
  LOW4_MISMATCH("low4_mismatch"),
  /** CPU memory must come from the driver pool ({@code tcaMalloc}); the source must be local pool or device memory. */
  NOT_POOL_MEMORY("not_pool"),
  /** The destination is outside the global window, or an unmapped part of this node's slice. */
  BAD_DESTINATION("bad_destination"),
  /** A descriptor is malformed (version, length, stride) or the chain is broken or too long. */
  BAD_DESCRIPTOR("bad_descriptor");

  private final String tag;

  DmaRule(String tag) {
    this.tag = tag;
  }

  /** @return the meter tag value */
  public String tag() {
    return tag;
  }
}
