package io.github.verbs4j.ib.engine;

import io.github.verbs4j.verbs.spi.SoftMemoryRegion;

/**
 * How the engine finds memory regions: by key (every data access) and by address (an inline send,
 * whose lkey is not checked, ibv_post_send(3)). Implemented by the context over its key table.
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

  /**
   * @param addr an address
   * @param len a length
   * @return a region of this device containing {@code [addr, addr+len)}, or null
   */
  SoftMemoryRegion containing(long addr, long len);
}
