package io.github.verbs4j.ib.engine;

import io.github.verbs4j.verbs.spi.SoftMemoryRegion;

/**
 * How the engine finds memory regions by key (every data access). Implemented by the context over
 * its key table. (Inline data is found at post, through {@code InlineData} of the SPI.)
 */
public interface MemoryDirectory {
  /**
   * @param lkey a local key
   * @return the region, or null if the key is not valid
   */
  SoftMemoryRegion byLkey(int lkey);

  /**
   * @param rkey a remote key
   * @return the region, or null if the key is not valid
   */
  SoftMemoryRegion byRkey(int rkey);
}
