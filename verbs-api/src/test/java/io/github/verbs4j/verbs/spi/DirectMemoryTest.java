package io.github.verbs4j.verbs.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.VerbsException;
import org.junit.jupiter.api.Test;

class DirectMemoryTest {
  @Test
  void aLengthBeyondWhatTheLimitLeavesIsEnomemNamingIt() {
    VerbsException e = assertThrows(VerbsException.class, () -> DirectMemory.allocate(4096, 4095));
    assertEquals(Errno.ENOMEM, e.errno());
    assertTrue(e.getMessage().contains("length=4096"), e.getMessage());
  }

  @Test
  void aLengthWithinTheLimitIsAllocatedZeroed() {
    assertEquals(64, DirectMemory.allocate(64, 4096).capacity());
    assertEquals(0, DirectMemory.allocate(64).get(63));
  }
}
