package io.github.verbs4j.verbs.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.AsyncEvent;
import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.CompletionChannel;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.VerbsException;
import io.github.verbs4j.verbs.WcOpcode;
import io.github.verbs4j.verbs.WcStatus;
import io.github.verbs4j.verbs.WorkCompletion;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SoftCompletionQueue} and {@link SoftCompletionChannel} without a provider: FIFO polling,
 * overrun (exactly one CQ_ERR, then EIO), one-shot and solicited-only notification
 * (reference/verbs-semantics.md §4.1–4.2), ackEvents and close rules.
 */
class SoftCompletionQueueTest {
  private final TestContext ctx = new TestContext();
  private final WorkCompletion scratch = new WorkCompletion();
  private final WorkCompletion[] out = WorkCompletion.array(16);

  @AfterEach
  void closeContext() {
    // Tests close what they create; a leak shows up here as EBUSY.
    ctx.close();
  }

  private boolean push(SoftCompletionQueue cq, long wrId, WcStatus status, boolean solicited) {
    return cq.push(scratch.reset(wrId, status, WcOpcode.RECV, 7), solicited);
  }

  private SoftCompletionQueue cq(int cqe, CompletionChannel ch) {
    return (SoftCompletionQueue) ctx.createCq(cqe, ch, 0);
  }

  private int asyncEvents(AsyncEventType type) {
    int n = 0;
    Optional<AsyncEvent> e;
    while ((e = ctx.pollAsyncEvent(Duration.ZERO)).isPresent()) {
      if (e.get().type() == type) {
        n++;
      }
    }
    return n;
  }

  @Test
  void pollTakesAtMostTheArraysLengthAndRefusesANegativeCountLosingNothing() {
    SoftCompletionQueue cq = cq(8, null);
    for (int i = 0; i < 3; i++) {
      assertTrue(push(cq, i, WcStatus.SUCCESS, false));
    }
    VerbsException e = assertThrows(VerbsException.class, () -> cq.poll(out, -1));
    assertEquals(Errno.EINVAL, e.errno());
    assertTrue(e.getMessage().contains("num_entries=-1"), e.getMessage());
    WorkCompletion[] two = WorkCompletion.array(2);
    assertEquals(2, cq.poll(two, 5), "max above the array's length takes the length");
    assertEquals(1, cq.poll(out, 16));
    assertEquals(2, out[0].wrId(), "nothing lost to the refused poll");
    cq.close();
  }

  @Test
  void completionsArePolledInFifoOrderAndCarryTheirFields() {
    SoftCompletionQueue cq = cq(4, null);
    for (long i = 1; i <= 3; i++) {
      assertTrue(push(cq, i, WcStatus.SUCCESS, false));
    }
    assertEquals(2, cq.poll(out, 2));
    assertEquals(1, out[0].wrId());
    assertEquals(2, out[1].wrId());
    assertEquals(7, out[0].qpNum());
    assertEquals(WcOpcode.RECV, out[0].opcode());
    assertTrue(out[0].timestampNanos() > 0, "the CQ stamps completions with the context clock");
    assertEquals(1, cq.poll(out));
    assertEquals(3, out[0].wrId());
    assertEquals(0, cq.poll(out));
    cq.close();
  }

  @Test
  void overrunRaisesExactlyOneCqErrThenPollFailsWithEio() {
    SoftCompletionQueue cq = cq(2, null);
    assertTrue(push(cq, 1, WcStatus.SUCCESS, false));
    assertTrue(push(cq, 2, WcStatus.SUCCESS, false));
    assertFalse(push(cq, 3, WcStatus.SUCCESS, false), "the third completion does not fit");
    assertFalse(push(cq, 4, WcStatus.SUCCESS, false), "an overrun CQ accepts nothing more");
    Optional<AsyncEvent> ev = ctx.pollAsyncEvent(Duration.ZERO);
    assertTrue(ev.isPresent());
    assertEquals(AsyncEventType.CQ_ERR, ev.get().type());
    assertSame(cq, ev.get().cq());
    assertEquals(0, asyncEvents(AsyncEventType.CQ_ERR), "exactly one CQ_ERR");
    assertTrue(cq.isOverrun());
    VerbsException e = assertThrows(VerbsException.class, () -> cq.poll(out));
    assertEquals(Errno.EIO, e.errno());
    cq.close();
  }

  @Test
  void notificationIsOneShot() {
    try (CompletionChannel ch = ctx.createCompletionChannel()) {
      SoftCompletionQueue cq = cq(8, ch);
      cq.requestNotify(false);
      push(cq, 1, WcStatus.SUCCESS, false);
      push(cq, 2, WcStatus.SUCCESS, false);
      Optional<CompletionQueue> first = ch.await(Duration.ZERO);
      assertTrue(first.isPresent());
      assertSame(cq, first.get());
      assertTrue(ch.await(Duration.ZERO).isEmpty(), "one event per requestNotify");
      cq.ackEvents(1);
      cq.requestNotify(false);
      push(cq, 3, WcStatus.SUCCESS, false);
      assertTrue(ch.await(Duration.ZERO).isPresent(), "re-arming gives the next event");
      cq.ackEvents(1);
      cq.close();
    }
  }

  @Test
  void onlyCompletionsAddedAfterArmingTrigger() {
    try (CompletionChannel ch = ctx.createCompletionChannel()) {
      SoftCompletionQueue cq = cq(8, ch);
      push(cq, 1, WcStatus.SUCCESS, false);
      cq.requestNotify(false);
      assertTrue(ch.await(Duration.ZERO).isEmpty(), "an unpolled completion from before arming does not fire");
      push(cq, 2, WcStatus.SUCCESS, false);
      assertTrue(ch.await(Duration.ZERO).isPresent());
      cq.ackEvents(1);
      cq.close();
    }
  }

  @Test
  void solicitedOnlyFiresForSolicitedOrErrorCompletions() {
    try (CompletionChannel ch = ctx.createCompletionChannel()) {
      SoftCompletionQueue cq = cq(8, ch);
      cq.requestNotify(true);
      push(cq, 1, WcStatus.SUCCESS, false);
      assertTrue(ch.await(Duration.ZERO).isEmpty(), "an unsolicited success does not fire");
      push(cq, 2, WcStatus.SUCCESS, true);
      assertTrue(ch.await(Duration.ZERO).isPresent(), "a solicited completion fires");
      cq.requestNotify(true);
      push(cq, 3, WcStatus.LOC_LEN_ERR, false);
      assertTrue(ch.await(Duration.ZERO).isPresent(), "an error completion fires");
      assertTrue(ch.await(Duration.ZERO).isEmpty());
      cq.ackEvents(2);
      cq.close();
    }
  }

  @Test
  void ackingMoreEventsThanDeliveredFailsWithEinval() {
    try (CompletionChannel ch = ctx.createCompletionChannel()) {
      SoftCompletionQueue cq = cq(8, ch);
      VerbsException e = assertThrows(VerbsException.class, () -> cq.ackEvents(1));
      assertEquals(Errno.EINVAL, e.errno());
      cq.close();
    }
  }

  @Test
  void closingWithUnacknowledgedEventsFailsWithEbusyUntilAcked() {
    try (CompletionChannel ch = ctx.createCompletionChannel()) {
      SoftCompletionQueue cq = cq(8, ch);
      cq.requestNotify(false);
      push(cq, 1, WcStatus.SUCCESS, false);
      assertTrue(ch.await(Duration.ZERO).isPresent());
      VerbsException e = assertThrows(VerbsException.class, cq::close);
      assertEquals(Errno.EBUSY, e.errno());
      assertTrue(e.getMessage().contains("not acknowledged"), e.getMessage());
      VerbsException busyChannel = assertThrows(VerbsException.class, ch::close);
      assertEquals(Errno.EBUSY, busyChannel.errno(), "a channel with an attached CQ cannot be closed");
      cq.ackEvents(1);
      cq.close();
      cq.close(); // idempotent
      VerbsException closed = assertThrows(VerbsException.class, () -> cq.poll(out));
      assertEquals(Errno.EBADF, closed.errno());
    }
  }

  @Test
  void requestNotifyWithoutChannelFailsWithEinval() {
    SoftCompletionQueue cq = cq(2, null);
    VerbsException e = assertThrows(VerbsException.class, () -> cq.requestNotify(false));
    assertEquals(Errno.EINVAL, e.errno());
    cq.close();
  }

  @Test
  void resizeKeepsPendingCompletionsInOrderAndRejectsTooSmall() {
    SoftCompletionQueue cq = cq(3, null);
    for (long i = 1; i <= 3; i++) {
      push(cq, i, WcStatus.SUCCESS, false);
    }
    VerbsException e = assertThrows(VerbsException.class, () -> cq.resize(2));
    assertEquals(Errno.EINVAL, e.errno());
    cq.resize(7);
    assertTrue(cq.cqe() >= 7);
    for (long i = 4; i <= 7; i++) {
      assertTrue(push(cq, i, WcStatus.SUCCESS, false));
    }
    assertEquals(7, cq.poll(out));
    for (int i = 0; i < 7; i++) {
      assertEquals(i + 1, out[i].wrId());
    }
    VerbsException big = assertThrows(VerbsException.class, () -> cq.resize(ctx.queryDevice().maxCqe() + 1));
    assertEquals(Errno.EINVAL, big.errno());
    cq.close();
  }

  @Test
  void purgeRemovesOnlyTheQpsCompletions() {
    SoftCompletionQueue cq = cq(8, null);
    cq.push(scratch.reset(1, WcStatus.SUCCESS, WcOpcode.SEND, 5), false);
    cq.push(scratch.reset(2, WcStatus.SUCCESS, WcOpcode.SEND, 6), false);
    cq.push(scratch.reset(3, WcStatus.SUCCESS, WcOpcode.SEND, 5), false);
    cq.push(scratch.reset(4, WcStatus.SUCCESS, WcOpcode.SEND, 6), false);
    cq.purge(5);
    assertEquals(2, cq.poll(out));
    assertEquals(2, out[0].wrId());
    assertEquals(4, out[1].wrId());
    cq.close();
  }

  @Test
  void createCqValidatesSizeAndCompVector() {
    int max = ctx.queryDevice().maxCqe();
    assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> ctx.createCq(max + 1, null, 0)).errno());
    assertEquals(Errno.EINVAL, assertThrows(VerbsException.class, () -> ctx.createCq(0, null, 0)).errno());
    VerbsException e = assertThrows(VerbsException.class,
        () -> ctx.createCq(1, null, ctx.queryDevice().numCompVectors()));
    assertTrue(e.getMessage().contains("comp_vector"), e.getMessage());
    ctx.createCq(max, null, 0).close();
  }
}
