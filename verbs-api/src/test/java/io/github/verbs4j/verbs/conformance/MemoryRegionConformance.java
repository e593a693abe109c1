package io.github.verbs4j.verbs.conformance;

import static io.github.verbs4j.verbs.conformance.KitAssertions.assertEinvalNaming;
import static io.github.verbs4j.verbs.conformance.KitAssertions.assertErrno;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.ProtectionDomain;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Conformance of memory registration ({@code ibv_reg_mr}, {@code ibv_dereg_mr}): §6 scenario 13
 * and the region contract of §4.5. Subclass it and return your {@link KitEnvironment}; see {@link
 * AbstractConformance}.
 */
public abstract class MemoryRegionConformance extends AbstractConformance {

  /** Scenario 13: REMOTE_WRITE or REMOTE_ATOMIC without LOCAL_WRITE fails with EINVAL. */
  @Test
  public void remoteWriteOrRemoteAtomicWithoutLocalWriteFailsWithEinval() {
    oneSided(p -> {
      try (ProtectionDomain pd = p.ctx().allocPd()) {
        assertEinvalNaming("REMOTE_WRITE", () -> pd.allocateMemory(4096, EnumSet.of(Access.REMOTE_WRITE)));
        assertEinvalNaming("REMOTE_ATOMIC", () -> pd.allocateMemory(4096, EnumSet.of(Access.REMOTE_ATOMIC)));
        ByteBuffer buf = ByteBuffer.allocateDirect(4096);
        assertEinvalNaming("REMOTE_WRITE", () -> pd.registerMemory(buf, EnumSet.of(Access.REMOTE_WRITE,
            Access.REMOTE_READ)));
      }
    });
  }

  /** Scenario 13: REMOTE_READ alone is accepted (local read is always allowed). */
  @Test
  public void remoteReadAloneIsAccepted() {
    oneSided(p -> {
      try (ProtectionDomain pd = p.ctx().allocPd(); MemoryRegion mr = pd.allocateMemory(4096,
          EnumSet.of(Access.REMOTE_READ))) {
        assertEquals(Set.of(Access.REMOTE_READ), mr.access());
      }
    });
  }

  /** §4.5: a registered buffer keeps its memory, length and access; keys of two regions differ. */
  @Test
  public void registeredBufferIsSharedWithTheRegionAndKeysAreDistinct() {
    oneSided(p -> {
      ByteBuffer buf = ByteBuffer.allocateDirect(4096);
      Set<Access> access = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);
      try (ProtectionDomain pd = p.ctx().allocPd(); MemoryRegion a = pd.registerMemory(buf, access);
          MemoryRegion b = pd.allocateMemory(8192, EnumSet.of(Access.LOCAL_WRITE))) {
        assertEquals(4096, a.length());
        assertEquals(8192, b.length());
        assertEquals(access, a.access());
        assertSame(pd, a.pd());
        buf.put(17, (byte) 0x5a);
        assertEquals((byte) 0x5a, a.buffer().get(17), "the region is the registered memory, not a copy");
        assertEquals(4096, a.buffer().capacity());
        assertNotEquals(a.lkey(), b.lkey());
        assertNotEquals(a.rkey(), b.rkey());
      }
    });
  }

  /** §4.5: allocated memory starts zeroed. */
  @Test
  public void allocatedMemoryStartsZeroed() {
    oneSided(p -> {
      try (ProtectionDomain pd = p.ctx().allocPd(); MemoryRegion mr = pd.allocateMemory(4099,
          EnumSet.of(Access.LOCAL_WRITE))) {
        KitAssertions.assertFilled(mr.buffer(), 0, 4099, (byte) 0);
      }
    });
  }

  /** §4.5: a heap buffer or an empty buffer cannot be registered. */
  @Test
  public void heapOrEmptyBufferRegistrationFailsWithEinval() {
    oneSided(p -> {
      try (ProtectionDomain pd = p.ctx().allocPd()) {
        assertErrno(Errno.EINVAL, () -> pd.registerMemory(ByteBuffer.allocate(64), EnumSet.of(Access.LOCAL_WRITE)));
        assertErrno(Errno.EINVAL, () -> pd.registerMemory(ByteBuffer.allocateDirect(0),
            EnumSet.of(Access.LOCAL_WRITE)));
        assertErrno(Errno.EINVAL, () -> pd.allocateMemory(0, EnumSet.of(Access.LOCAL_WRITE)));
      }
    });
  }

  /** §4.5: deregistration is idempotent and frees the PD. */
  @Test
  public void deregisteringIsIdempotentAndReleasesThePd() {
    oneSided(p -> {
      ProtectionDomain pd = p.ctx().allocPd();
      MemoryRegion mr = pd.allocateMemory(64, EnumSet.of(Access.LOCAL_WRITE));
      mr.close();
      mr.close();
      pd.close();
    });
  }
}
