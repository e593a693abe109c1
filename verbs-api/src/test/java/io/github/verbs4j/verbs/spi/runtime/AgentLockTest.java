package io.github.verbs4j.verbs.spi.runtime;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The try-lock's states: IDLE → BUSY on a try, BUSY → ARMED on a lost try that arms, and back. */
class AgentLockTest {
  @Test
  void aTryTakesAFreeLockOnlyOnce() {
    AgentLock l = new AgentLock();
    assertTrue(l.tryAcquire());
    assertTrue(l.isHeld());
    assertFalse(l.tryAcquire(), "held: a second try fails");
    assertTrue(l.release());
    assertFalse(l.isHeld());
    assertTrue(l.tryAcquire(), "free again");
  }

  @Test
  void aLostArmingTryMakesTheHolderGoRoundOnceMore() {
    AgentLock l = new AgentLock();
    assertTrue(l.acquireOrArm(), "free: taken");
    assertFalse(l.acquireOrArm(), "held: armed instead");
    assertFalse(l.acquireOrArm(), "already armed");
    assertFalse(l.release(), "armed: the holder keeps it and runs again");
    assertTrue(l.isHeld());
    assertFalse(l.tryAcquire());
    assertTrue(l.release(), "not armed again: released");
    assertFalse(l.isHeld());
  }

  @Test
  void releaseFullyFreesAnArmedLock() {
    AgentLock l = new AgentLock();
    assertTrue(l.acquireOrArm());
    assertFalse(l.acquireOrArm());
    l.releaseFully();
    assertFalse(l.isHeld());
  }
}
