package io.github.verbs4j.tca.peach2;

/** How a board moved bytes: by CPU stores (PIO) or by the DMA controller in one of its modes. */
public enum TransferKind {
  /** CPU stores into the mapped window (seed 001 §3.5.1). */
  PIO("pio"),
  /** DMA with descriptors in internal memory. */
  DMA_INTERNAL("dma_internal"),
  /** DMA with descriptors in host memory. */
  DMA_HOST("dma_host"),
  /** DMA in register mode. */
  DMA_REGISTER("dma_register");

  private final String tag;

  TransferKind(String tag) {
    this.tag = tag;
  }

  /** @return the meter tag value */
  public String tag() {
    return tag;
  }

  /**
   * @param mode a descriptor mode
   * @return the DMA kind
   */
  public static TransferKind of(DescriptorMode mode) {
    return switch (mode) {
      case INTERNAL -> DMA_INTERNAL;
      case HOST -> DMA_HOST;
      case REGISTER -> DMA_REGISTER;
    };
  }
}
