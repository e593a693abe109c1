package io.github.verbs4j.verbs;

import static io.github.verbs4j.verbs.QpAttrMask.ACCESS_FLAGS;
import static io.github.verbs4j.verbs.QpAttrMask.ALT_PATH;
import static io.github.verbs4j.verbs.QpAttrMask.AV;
import static io.github.verbs4j.verbs.QpAttrMask.CUR_STATE;
import static io.github.verbs4j.verbs.QpAttrMask.DEST_QPN;
import static io.github.verbs4j.verbs.QpAttrMask.EN_SQD_ASYNC_NOTIFY;
import static io.github.verbs4j.verbs.QpAttrMask.MAX_DEST_RD_ATOMIC;
import static io.github.verbs4j.verbs.QpAttrMask.MAX_QP_RD_ATOMIC;
import static io.github.verbs4j.verbs.QpAttrMask.MIN_RNR_TIMER;
import static io.github.verbs4j.verbs.QpAttrMask.PATH_MIG_STATE;
import static io.github.verbs4j.verbs.QpAttrMask.PATH_MTU;
import static io.github.verbs4j.verbs.QpAttrMask.PKEY_INDEX;
import static io.github.verbs4j.verbs.QpAttrMask.PORT;
import static io.github.verbs4j.verbs.QpAttrMask.QKEY;
import static io.github.verbs4j.verbs.QpAttrMask.RATE_LIMIT;
import static io.github.verbs4j.verbs.QpAttrMask.RETRY_CNT;
import static io.github.verbs4j.verbs.QpAttrMask.RNR_RETRY;
import static io.github.verbs4j.verbs.QpAttrMask.RQ_PSN;
import static io.github.verbs4j.verbs.QpAttrMask.SQ_PSN;
import static io.github.verbs4j.verbs.QpAttrMask.STATE;
import static io.github.verbs4j.verbs.QpAttrMask.TIMEOUT;
import static io.github.verbs4j.verbs.QpState.ERR;
import static io.github.verbs4j.verbs.QpState.INIT;
import static io.github.verbs4j.verbs.QpState.RESET;
import static io.github.verbs4j.verbs.QpState.RTR;
import static io.github.verbs4j.verbs.QpState.RTS;
import static io.github.verbs4j.verbs.QpState.SQD;
import static io.github.verbs4j.verbs.QpState.SQE;
import static io.github.verbs4j.verbs.QpType.DCI;
import static io.github.verbs4j.verbs.QpType.DCT;
import static io.github.verbs4j.verbs.QpType.RAW_PACKET;
import static io.github.verbs4j.verbs.QpType.RC;
import static io.github.verbs4j.verbs.QpType.UC;
import static io.github.verbs4j.verbs.QpType.UD;
import static io.github.verbs4j.verbs.QpType.XRC_RECV;
import static io.github.verbs4j.verbs.QpType.XRC_SEND;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.verbs.spi.QpStateTable;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link QpStateTable#check} against a transcription of reference/verbs-semantics.md §2.2 (legal
 * cells), §2.3 (required and optional masks, XRC notes) and §5.1 (DCI/DCT), written here by hand,
 * not derived from the implementation. "Nothing is modified on failure" (§2.4 rule 5) needs a real
 * QP and is checked by the conformance kit ({@code QueuePairConformance}).
 */
class QpStateTableTest {
  private static final List<QpState> STATES = List.of(RESET, INIT, RTR, RTS, SQD, SQE, ERR);
  private static final List<QpType> TYPES = List.of(RC, UC, UD, XRC_SEND, XRC_RECV, RAW_PACKET, DCI, DCT);

  /** A legal cell: required and optional masks, or {@code maskKnown=false} where the reference gives none. */
  private record Cell(Set<QpAttrMask> required, Set<QpAttrMask> optional, boolean maskKnown) {}

  private static final Map<QpType, Map<QpState, Map<QpState, Cell>>> REF = new EnumMap<>(QpType.class);

  private static Set<QpAttrMask> s(QpAttrMask... bits) {
    Set<QpAttrMask> set = EnumSet.noneOf(QpAttrMask.class);
    set.addAll(List.of(bits));
    return set;
  }

  private static Set<QpAttrMask> minus(Set<QpAttrMask> set, QpAttrMask... bits) {
    Set<QpAttrMask> c = EnumSet.noneOf(QpAttrMask.class);
    c.addAll(set);
    List.of(bits).forEach(c::remove);
    return c;
  }

  private static void legal(QpType t, QpState from, QpState to, Set<QpAttrMask> req, Set<QpAttrMask> opt) {
    REF.computeIfAbsent(t, k -> new EnumMap<>(QpState.class)).computeIfAbsent(from, k -> new EnumMap<>(QpState.class))
        .put(to, new Cell(req, opt, true));
  }

  private static void legalMaskUnknown(QpType t, QpState from, QpState to) {
    REF.computeIfAbsent(t, k -> new EnumMap<>(QpState.class)).computeIfAbsent(from, k -> new EnumMap<>(QpState.class))
        .put(to, new Cell(s(), s(), false));
  }

  private static Cell ref(QpType t, QpState from, QpState to) {
    return REF.getOrDefault(t, Map.of()).getOrDefault(from, Map.of()).get(to);
  }

  static {
    for (QpType t : TYPES) {
      // §2.2: any state may go to RESET, any state other than RESET to ERR; only STATE (§2.3 last row).
      for (QpState from : STATES) {
        legal(t, from, RESET, s(), s());
        if (from != RESET) {
          legal(t, from, ERR, s(), s());
        }
      }
    }
    // §2.3, UD / UC / RC rows.
    legal(UD, RESET, INIT, s(PKEY_INDEX, PORT, QKEY), s());
    legal(UC, RESET, INIT, s(PKEY_INDEX, PORT, ACCESS_FLAGS), s());
    legal(RC, RESET, INIT, s(PKEY_INDEX, PORT, ACCESS_FLAGS), s());
    legal(UD, INIT, INIT, s(), s(PKEY_INDEX, PORT, QKEY));
    legal(UC, INIT, INIT, s(), s(PKEY_INDEX, PORT, ACCESS_FLAGS));
    legal(RC, INIT, INIT, s(), s(PKEY_INDEX, PORT, ACCESS_FLAGS));
    legal(UD, INIT, RTR, s(), s(PKEY_INDEX, QKEY));
    legal(UC, INIT, RTR, s(AV, PATH_MTU, DEST_QPN, RQ_PSN), s(ALT_PATH, ACCESS_FLAGS, PKEY_INDEX));
    legal(RC, INIT, RTR, s(AV, PATH_MTU, DEST_QPN, RQ_PSN, MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER),
        s(ALT_PATH, ACCESS_FLAGS, PKEY_INDEX));
    legal(UD, RTR, RTS, s(SQ_PSN), s(CUR_STATE, QKEY));
    legal(UC, RTR, RTS, s(SQ_PSN), s(CUR_STATE, ALT_PATH, ACCESS_FLAGS, PATH_MIG_STATE));
    legal(RC, RTR, RTS, s(SQ_PSN, TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC),
        s(CUR_STATE, ALT_PATH, ACCESS_FLAGS, MIN_RNR_TIMER, PATH_MIG_STATE));
    Set<QpAttrMask> udRtsRts = s(CUR_STATE, QKEY);
    Set<QpAttrMask> ucRtsRts = s(CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE);
    Set<QpAttrMask> rcRtsRts = s(CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE, MIN_RNR_TIMER);
    legal(UD, RTS, RTS, s(), udRtsRts);
    legal(UC, RTS, RTS, s(), ucRtsRts);
    legal(RC, RTS, RTS, s(), rcRtsRts);
    // SQD->RTS: "same as RTS->RTS for that type"
    legal(UD, SQD, RTS, s(), udRtsRts);
    legal(UC, SQD, RTS, s(), ucRtsRts);
    legal(RC, SQD, RTS, s(), rcRtsRts);
    // RTS->SQD: all types, optional EN_SQD_ASYNC_NOTIFY (DCT never reaches RTS, see below)
    for (QpType t : List.of(RC, UC, UD, XRC_SEND, XRC_RECV, RAW_PACKET, DCI)) {
      legal(t, RTS, SQD, s(), s(EN_SQD_ASYNC_NOTIFY));
    }
    legal(UD, SQD, SQD, s(), s(PKEY_INDEX, QKEY));
    legal(UC, SQD, SQD, s(), s(AV, ALT_PATH, ACCESS_FLAGS, PKEY_INDEX, PATH_MIG_STATE));
    Set<QpAttrMask> rcSqdSqd = s(PORT, AV, TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC, MAX_DEST_RD_ATOMIC,
        ALT_PATH, ACCESS_FLAGS, PKEY_INDEX, MIN_RNR_TIMER, PATH_MIG_STATE);
    legal(RC, SQD, SQD, s(), rcSqdSqd);
    // SQE->RTS: UD/UC only ("RC never enters SQE")
    legal(UD, SQE, RTS, s(), s(CUR_STATE, QKEY));
    legal(UC, SQE, RTS, s(), s(CUR_STATE, ACCESS_FLAGS));
    // RAW_PACKET rows of §2.3; the other legal cells of §2.2 give RAW no mask.
    legal(RAW_PACKET, RESET, INIT, s(PORT), s());
    legal(RAW_PACKET, RTR, RTS, s(), s(RATE_LIMIT));
    legalMaskUnknown(RAW_PACKET, INIT, INIT);
    legalMaskUnknown(RAW_PACKET, INIT, RTR);
    legalMaskUnknown(RAW_PACKET, RTS, RTS);
    legalMaskUnknown(RAW_PACKET, SQD, RTS);
    legalMaskUnknown(RAW_PACKET, SQD, SQD);
    // XRC_SEND (notes after the §2.3 table): RESET->INIT as RC; INIT->RTR as UC; RTR->RTS as RC;
    // optional sets as RC minus MIN_RNR_TIMER (SQD->SQD also minus MAX_DEST_RD_ATOMIC).
    legal(XRC_SEND, RESET, INIT, s(PKEY_INDEX, PORT, ACCESS_FLAGS), s());
    legal(XRC_SEND, INIT, INIT, s(), s(PKEY_INDEX, PORT, ACCESS_FLAGS));
    legal(XRC_SEND, INIT, RTR, s(AV, PATH_MTU, DEST_QPN, RQ_PSN), s(ALT_PATH, ACCESS_FLAGS, PKEY_INDEX));
    legal(XRC_SEND, RTR, RTS, s(SQ_PSN, TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC),
        s(CUR_STATE, ALT_PATH, ACCESS_FLAGS, PATH_MIG_STATE));
    legal(XRC_SEND, RTS, RTS, s(), minus(rcRtsRts, MIN_RNR_TIMER));
    legal(XRC_SEND, SQD, RTS, s(), minus(rcRtsRts, MIN_RNR_TIMER));
    legal(XRC_SEND, SQD, SQD, s(), minus(rcSqdSqd, MIN_RNR_TIMER, MAX_DEST_RD_ATOMIC));
    // XRC_RECV: RESET->INIT and INIT->RTR as RC; RTR->RTS requires only TIMEOUT, SQ_PSN; optional sets
    // as RC (SQD->SQD minus RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC).
    legal(XRC_RECV, RESET, INIT, s(PKEY_INDEX, PORT, ACCESS_FLAGS), s());
    legal(XRC_RECV, INIT, INIT, s(), s(PKEY_INDEX, PORT, ACCESS_FLAGS));
    legal(XRC_RECV, INIT, RTR, s(AV, PATH_MTU, DEST_QPN, RQ_PSN, MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER),
        s(ALT_PATH, ACCESS_FLAGS, PKEY_INDEX));
    legal(XRC_RECV, RTR, RTS, s(TIMEOUT, SQ_PSN), s(CUR_STATE, ALT_PATH, ACCESS_FLAGS, MIN_RNR_TIMER, PATH_MIG_STATE));
    legal(XRC_RECV, RTS, RTS, s(), rcRtsRts);
    legal(XRC_RECV, SQD, RTS, s(), rcRtsRts);
    legal(XRC_RECV, SQD, SQD, s(), minus(rcSqdSqd, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC));
    // DCI (§5.1): RESET->INIT req PKEY_INDEX, PORT; INIT->INIT opt PKEY_INDEX, PORT; INIT->RTR req
    // PATH_MTU opt PKEY_INDEX (newer kernels also AV); RTR->RTS req TIMEOUT, RETRY_CNT, RNR_RETRY,
    // MAX_QP_RD_ATOMIC, SQ_PSN opt MIN_RNR_TIMER; RTS->RTS opt MIN_RNR_TIMER. §5.1 is silent on SQD,
    // which §2.2 allows for every type: legal, no mask given. §5.1 does not say whether CUR_STATE is
    // accepted on DCI, so CUR_STATE is not checked for DCI cells (see disallowedBits()).
    legal(DCI, RESET, INIT, s(PKEY_INDEX, PORT), s());
    legal(DCI, INIT, INIT, s(), s(PKEY_INDEX, PORT));
    legal(DCI, INIT, RTR, s(PATH_MTU), s(PKEY_INDEX, AV));
    legal(DCI, RTR, RTS, s(TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC, SQ_PSN), s(MIN_RNR_TIMER));
    legal(DCI, RTS, RTS, s(), s(MIN_RNR_TIMER));
    legalMaskUnknown(DCI, SQD, RTS);
    legalMaskUnknown(DCI, SQD, SQD);
    // DCT (§5.1): RESET->INIT req ACCESS_FLAGS, PKEY_INDEX, PORT; INIT->RTR req MIN_RNR_TIMER, AV,
    // PATH_MTU; never RTS; every other transition but ->RESET and ->ERR (§2.2, above) is EINVAL.
    legal(DCT, RESET, INIT, s(ACCESS_FLAGS, PKEY_INDEX, PORT), s());
    legal(DCT, INIT, RTR, s(MIN_RNR_TIMER, AV, PATH_MTU), s());
  }

  /** §2.2 matrix, type-independent except SQE->RTS (UD/UC only) and the DC rules of §5.1. */
  private static boolean matrixSaysLegal(QpType t, QpState from, QpState to) {
    if (to == RESET) {
      return true;
    }
    if (to == ERR) {
      return from != RESET;
    }
    if (t == DCT) {
      return (from == RESET && to == INIT) || (from == INIT && to == RTR);
    }
    switch (from) {
      case RESET:
        return to == INIT;
      case INIT:
        return to == INIT || to == RTR;
      case RTR:
        return to == RTS;
      case RTS:
        return to == RTS || to == SQD;
      case SQD:
        return to == RTS || to == SQD;
      case SQE:
        return to == RTS && (t == UD || t == UC);
      default:
        return false;
    }
  }

  /** Sets the field of {@code bit} on {@code a} (the value does not matter to the mask check). */
  private static QpAttr set(QpAttr a, QpAttrMask bit, QpState from) {
    switch (bit) {
      case STATE:
        return a;
      case CUR_STATE:
        return a.curQpState(from);
      case EN_SQD_ASYNC_NOTIFY:
        return a.enSqdAsyncNotify(true);
      case ACCESS_FLAGS:
        return a.qpAccessFlags(EnumSet.of(Access.REMOTE_WRITE));
      case PKEY_INDEX:
        return a.pkeyIndex(0);
      case PORT:
        return a.portNum(1);
      case QKEY:
        return a.qkey(0x11111111);
      case AV:
        return a.ahAttr(AhAttr.lid(1));
      case PATH_MTU:
        return a.pathMtu(Mtu.MTU_1024);
      case TIMEOUT:
        return a.timeout(14);
      case RETRY_CNT:
        return a.retryCnt(7);
      case RNR_RETRY:
        return a.rnrRetry(7);
      case RQ_PSN:
        return a.rqPsn(1);
      case MAX_QP_RD_ATOMIC:
        return a.maxRdAtomic(1);
      case ALT_PATH:
        throw new AssertionError("QpAttr has no ALT_PATH setter (alternate paths are not modelled)");
      case MIN_RNR_TIMER:
        return a.minRnrTimer(12);
      case SQ_PSN:
        return a.sqPsn(1);
      case MAX_DEST_RD_ATOMIC:
        return a.maxDestRdAtomic(1);
      case PATH_MIG_STATE:
        return a.pathMigState(MigState.MIGRATED);
      case CAP:
        return a.cap(QpCap.DEFAULT);
      case DEST_QPN:
        return a.destQpNum(1);
      case RATE_LIMIT:
        return a.rateLimit(1000);
      default:
        throw new AssertionError(bit);
    }
  }

  private static boolean settable(QpAttrMask bit) {
    return bit != ALT_PATH && bit != STATE;
  }

  private static QpAttr attr(QpState from, QpState to, Set<QpAttrMask> bits) {
    QpAttr a = new QpAttr().qpState(to);
    for (QpAttrMask b : bits) {
      if (settable(b)) {
        set(a, b, from);
      }
    }
    return a;
  }

  private static VerbsException einval(QpType t, QpState from, QpAttr a) {
    VerbsException e = assertThrows(VerbsException.class, () -> QpStateTable.check(t, from, a, t + " QP 0x1"),
        t + " " + from + " with " + QpAttrMask.describe(a.mask()));
    assertEquals(Errno.EINVAL, e.errno(), e.getMessage());
    return e;
  }

  @Test
  void everyCellOfTheTransitionMatrixIsLegalOrIllegalAsInTheReference() {
    for (QpType t : TYPES) {
      for (QpState from : STATES) {
        for (QpState to : STATES) {
          Cell c = ref(t, from, to);
          assertEquals(matrixSaysLegal(t, from, to), c != null,
              "transcription self-check " + t + " " + from + "->" + to);
          if (c != null) {
            QpAttr a = attr(from, to, c.required());
            assertEquals(to, QpStateTable.check(t, from, a, t + " QP 0x1"), t + " " + from + "->" + to);
          } else {
            VerbsException e = einval(t, from, attr(from, to, Set.of()));
            assertTrue(e.getMessage().contains(from + " -> " + to) || e.getMessage().contains(from.name()),
                "message does not name the transition: " + e.getMessage());
          }
        }
      }
    }
  }

  @Test
  void theFourIllegalTransitionsOfScenario12AreNamed() {
    // §6 scenario 12: RESET->RTR, RESET->ERR, RTR->RTR, INIT->RTS
    QpState[][] cells = {{RESET, RTR}, {RESET, ERR}, {RTR, RTR}, {INIT, RTS}};
    for (QpState[] c : cells) {
      VerbsException e = einval(RC, c[0], new QpAttr().qpState(c[1]));
      assertTrue(e.getMessage().contains("illegal transition " + c[0] + " -> " + c[1]), e.getMessage());
    }
  }

  @Test
  void eachMissingRequiredAttributeFailsNamingIt() {
    int checked = 0;
    for (QpType t : TYPES) {
      for (QpState from : STATES) {
        for (QpState to : STATES) {
          Cell c = ref(t, from, to);
          if (c == null || !c.maskKnown()) {
            continue;
          }
          for (QpAttrMask missing : c.required()) {
            Set<QpAttrMask> bits = minus(c.required(), missing);
            VerbsException e = einval(t, from, attr(from, to, bits));
            assertTrue(e.getMessage().contains("missing") && e.getMessage().contains(missing.name()),
                t + " " + from + "->" + to + " without " + missing + ": " + e.getMessage());
            checked++;
          }
        }
      }
    }
    assertTrue(checked > 50, "only " + checked + " required bits checked");
  }

  private static Set<QpAttrMask> disallowedBits(QpType t, Cell c) {
    Set<QpAttrMask> bits = EnumSet.allOf(QpAttrMask.class);
    bits.remove(STATE);
    bits.remove(ALT_PATH); // no setter in QpAttr (alternate paths are not modelled)
    bits.removeAll(c.required());
    bits.removeAll(c.optional());
    if (t == DCI) {
      bits.remove(CUR_STATE); // §5.1 does not say; see the DCI note above
    }
    return bits;
  }

  @Test
  void eachAttributeNotAllowedForTheTransitionFailsNamingIt() {
    int checked = 0;
    for (QpType t : TYPES) {
      for (QpState from : STATES) {
        for (QpState to : STATES) {
          Cell c = ref(t, from, to);
          if (c == null || !c.maskKnown()) {
            continue;
          }
          for (QpAttrMask extra : disallowedBits(t, c)) {
            QpAttr a = set(attr(from, to, c.required()), extra, from);
            VerbsException e = einval(t, from, a);
            String expected = extra == CUR_STATE && !curStateAllowedIn(from) ? "cur_qp_state" : extra.name();
            assertTrue(e.getMessage().contains(expected),
                t + " " + from + "->" + to + " with " + extra + " must name it: " + e.getMessage());
            checked++;
          }
        }
      }
    }
    assertTrue(checked > 500, "only " + checked + " disallowed bits checked");
  }

  private static boolean curStateAllowedIn(QpState s) {
    return s == RTR || s == RTS || s == SQD || s == SQE; // §2.4 rule 1
  }

  @Test
  void requiredPlusEveryOptionalAttributeIsAccepted() {
    for (QpType t : TYPES) {
      for (QpState from : STATES) {
        for (QpState to : STATES) {
          Cell c = ref(t, from, to);
          if (c == null || !c.maskKnown()) {
            continue;
          }
          Set<QpAttrMask> all = EnumSet.noneOf(QpAttrMask.class);
          all.addAll(c.required());
          all.addAll(c.optional());
          assertEquals(to, QpStateTable.check(t, from, attr(from, to, all), "qp"), t + " " + from + "->" + to
              + " with " + all);
        }
      }
    }
  }

  @Test
  void curStateIsAllowedOnlyWhenTheCurrentStateIsRtrRtsSqdOrSqe() {
    // §2.4 rule 1, and scenario 12: CUR_STATE in the mask while in INIT -> EINVAL.
    for (QpState from : List.of(RESET, INIT, ERR)) {
      QpAttr a = new QpAttr().qpState(ERR).curQpState(from);
      VerbsException e = einval(RC, from, a);
      assertTrue(e.getMessage().contains("cur_qp_state=" + from), e.getMessage());
    }
    // Allowed where the transition lists it: RTR->RTS, RTS->RTS, SQD->RTS, SQE->RTS (UD).
    QpAttr rtrRts = attr(RTR, RTS, ref(RC, RTR, RTS).required()).curQpState(RTR);
    assertEquals(RTS, QpStateTable.check(RC, RTR, rtrRts, "qp"));
    assertEquals(RTS, QpStateTable.check(RC, RTS, new QpAttr().qpState(RTS).curQpState(RTS), "qp"));
    assertEquals(RTS, QpStateTable.check(RC, SQD, new QpAttr().qpState(RTS).curQpState(SQD), "qp"));
    assertEquals(RTS, QpStateTable.check(UD, SQE, new QpAttr().qpState(RTS).curQpState(SQE), "qp"));
  }

  @Test
  void curStateThatDoesNotMatchTheActualStateIsRejected() {
    VerbsException e = einval(RC, RTS, new QpAttr().qpState(RTS).curQpState(RTR));
    assertTrue(e.getMessage().contains("cur_qp_state=RTR"), e.getMessage());
    assertTrue(e.getMessage().contains("RTS"), e.getMessage());
  }

  @Test
  void curStateInATransitionThatDoesNotListItIsRejectedNamingIt() {
    // RTS->SQD lists only EN_SQD_ASYNC_NOTIFY; RTS->ERR lists nothing.
    VerbsException e = einval(RC, RTS, new QpAttr().qpState(SQD).curQpState(RTS));
    assertTrue(e.getMessage().contains("CUR_STATE"), e.getMessage());
    e = einval(RC, RTS, new QpAttr().qpState(ERR).curQpState(RTS));
    assertTrue(e.getMessage().contains("CUR_STATE"), e.getMessage());
  }

  @Test
  void aModifyWithoutStateIsAnAttributeChangeInTheCurrentState() {
    // No STATE in the mask: cur->cur, which RTS->RTS allows (ACCESS_FLAGS) and INIT->INIT does not (MIN_RNR_TIMER).
    assertEquals(RTS, QpStateTable.check(RC, RTS, new QpAttr().qpAccessFlags(EnumSet.of(Access.REMOTE_READ)), "qp"));
    VerbsException e = einval(RC, INIT, new QpAttr().minRnrTimer(12));
    assertTrue(e.getMessage().contains("MIN_RNR_TIMER"), e.getMessage());
    VerbsException rtr = einval(RC, RTR, new QpAttr().minRnrTimer(12));
    assertTrue(rtr.getMessage().contains("RTR -> RTR"), rtr.getMessage());
  }

  @Test
  void scenario11MaskErrorsAreNamed() {
    // RC RESET->INIT without ACCESS_FLAGS; RC INIT->RTR without MIN_RNR_TIMER; UC INIT->RTR with MAX_DEST_RD_ATOMIC.
    VerbsException a = einval(RC, RESET, new QpAttr().qpState(INIT).pkeyIndex(0).portNum(1));
    assertTrue(a.getMessage().contains("ACCESS_FLAGS"), a.getMessage());
    VerbsException b = einval(RC, INIT, new QpAttr().qpState(RTR).ahAttr(AhAttr.lid(1)).pathMtu(Mtu.MTU_1024)
        .destQpNum(2).rqPsn(0).maxDestRdAtomic(1));
    assertTrue(b.getMessage().contains("MIN_RNR_TIMER"), b.getMessage());
    VerbsException c = einval(UC, INIT, new QpAttr().qpState(RTR).ahAttr(AhAttr.lid(1)).pathMtu(Mtu.MTU_1024)
        .destQpNum(2).rqPsn(0).maxDestRdAtomic(1));
    assertTrue(c.getMessage().contains("MAX_DEST_RD_ATOMIC"), c.getMessage());
  }

  @Test
  void aRuleExistsExactlyForTheLegalCells() {
    List<String> wrong = new ArrayList<>();
    for (QpType t : TYPES) {
      for (QpState from : STATES) {
        for (QpState to : STATES) {
          boolean has = QpStateTable.rule(t, from, to) != null;
          if (has != (ref(t, from, to) != null)) {
            wrong.add(t + " " + from + "->" + to + (has ? " has a rule" : " has no rule"));
          }
        }
      }
    }
    assertEquals(List.of(), wrong);
    assertEquals(null, QpStateTable.rule(RC, QpState.UNKNOWN, RESET));
  }
}
