package io.github.verbs4j.verbs.spi;

import java.nio.ByteBuffer;

/**
 * The native virtual address of a direct buffer, through jnr-ffi (no {@code --add-exports} needed).
 * Memory regions use it as their {@code address}, so verbs addresses look like C pointers.
 */
public final class DirectAddress {
  private DirectAddress() {}

  /**
   * @param buffer a direct buffer
   * @return the address of its element at position 0 (the buffer's own start, slices included)
   * @throws IllegalArgumentException if the buffer is not direct
   */
  public static long of(ByteBuffer buffer) {
    if (!buffer.isDirect()) {
      throw new IllegalArgumentException("buffer is not direct");
    }
    return jnr.ffi.Pointer.wrap(jnr.ffi.Runtime.getSystemRuntime(), buffer).address();
  }
}
