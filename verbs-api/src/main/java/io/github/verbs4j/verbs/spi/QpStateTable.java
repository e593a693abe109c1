package io.github.verbs4j.verbs.spi;

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

import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpAttrMask;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.VerbsException;
import java.util.EnumMap;
import java.util.Map;

/**
 * The QP state machine as one table: which transitions are legal, and per transition and QP type
 * which attributes are required and which optional. Transcribed from the kernel's {@code
 * qp_state_table} / {@code ib_modify_qp_is_ok} (reference/verbs-semantics.md §2.2–2.4) and, for
 * DCI/DCT, from the mlx5 driver (§5.1). Every provider enforces it through {@link
 * AbstractQueuePair#modify}.
 */
public final class QpStateTable {

  /**
   * Required and optional attributes of one transition for one QP type ({@link QpAttrMask#STATE}
   * is never listed: it is required for a state change and implied otherwise).
   *
   * @param required mask bits that must be present
   * @param optional mask bits that may be present
   */
  public record Rule(int required, int optional) {}

  private static final int STATES = QpState.ERR.value() + 1;
  @SuppressWarnings("unchecked")
  private static final Map<QpType, Rule>[][] TABLE = new Map[STATES][STATES];

  static {
    for (QpState from : new QpState[] {RESET, INIT, RTR, RTS, SQD, SQE, ERR}) {
      // Any state may go to RESET (only STATE); any state but RESET may go to ERR (IBA 10.3.1).
      allTypes(from, RESET, 0, 0);
      if (from != RESET) {
        allTypes(from, ERR, 0, 0);
      }
    }
    // RESET -> INIT
    rule(RESET, INIT, UD, m(PKEY_INDEX, PORT, QKEY), 0);
    rule(RESET, INIT, UC, m(PKEY_INDEX, PORT, ACCESS_FLAGS), 0);
    rule(RESET, INIT, RC, m(PKEY_INDEX, PORT, ACCESS_FLAGS), 0);
    rule(RESET, INIT, XRC_SEND, m(PKEY_INDEX, PORT, ACCESS_FLAGS), 0);
    rule(RESET, INIT, XRC_RECV, m(PKEY_INDEX, PORT, ACCESS_FLAGS), 0);
    rule(RESET, INIT, RAW_PACKET, m(PORT), 0);
    rule(RESET, INIT, DCI, m(PKEY_INDEX, PORT), 0);
    rule(RESET, INIT, DCT, m(ACCESS_FLAGS, PKEY_INDEX, PORT), 0);
    // INIT -> INIT (attribute change only); the DCT allows no transition but RESET->INIT->RTR.
    rule(INIT, INIT, UD, 0, m(PKEY_INDEX, PORT, QKEY));
    rule(INIT, INIT, UC, 0, m(PKEY_INDEX, PORT, ACCESS_FLAGS));
    rule(INIT, INIT, RC, 0, m(PKEY_INDEX, PORT, ACCESS_FLAGS));
    rule(INIT, INIT, XRC_SEND, 0, m(PKEY_INDEX, PORT, ACCESS_FLAGS));
    rule(INIT, INIT, XRC_RECV, 0, m(PKEY_INDEX, PORT, ACCESS_FLAGS));
    rule(INIT, INIT, RAW_PACKET, 0, m(PORT));
    rule(INIT, INIT, DCI, 0, m(PKEY_INDEX, PORT));
    // INIT -> RTR
    rule(INIT, RTR, UD, 0, m(PKEY_INDEX, QKEY));
    rule(INIT, RTR, UC, m(AV, PATH_MTU, DEST_QPN, RQ_PSN), m(ALT_PATH, ACCESS_FLAGS, PKEY_INDEX));
    rule(INIT, RTR, RC, m(AV, PATH_MTU, DEST_QPN, RQ_PSN, MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER),
        m(ALT_PATH, ACCESS_FLAGS, PKEY_INDEX));
    rule(INIT, RTR, XRC_SEND, m(AV, PATH_MTU, DEST_QPN, RQ_PSN), m(ALT_PATH, ACCESS_FLAGS, PKEY_INDEX));
    rule(INIT, RTR, XRC_RECV, m(AV, PATH_MTU, DEST_QPN, RQ_PSN, MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER),
        m(ALT_PATH, ACCESS_FLAGS, PKEY_INDEX));
    rule(INIT, RTR, RAW_PACKET, 0, 0);
    rule(INIT, RTR, DCI, m(PATH_MTU), m(PKEY_INDEX, AV));
    rule(INIT, RTR, DCT, m(MIN_RNR_TIMER, AV, PATH_MTU), 0);
    // RTR -> RTS
    rule(RTR, RTS, UD, m(SQ_PSN), m(CUR_STATE, QKEY));
    rule(RTR, RTS, UC, m(SQ_PSN), m(CUR_STATE, ALT_PATH, ACCESS_FLAGS, PATH_MIG_STATE));
    rule(RTR, RTS, RC, m(SQ_PSN, TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC),
        m(CUR_STATE, ALT_PATH, ACCESS_FLAGS, MIN_RNR_TIMER, PATH_MIG_STATE));
    rule(RTR, RTS, XRC_SEND, m(SQ_PSN, TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC),
        m(CUR_STATE, ALT_PATH, ACCESS_FLAGS, PATH_MIG_STATE));
    rule(RTR, RTS, XRC_RECV, m(TIMEOUT, SQ_PSN), m(CUR_STATE, ALT_PATH, ACCESS_FLAGS, MIN_RNR_TIMER, PATH_MIG_STATE));
    rule(RTR, RTS, RAW_PACKET, 0, m(RATE_LIMIT));
    rule(RTR, RTS, DCI, m(TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC, SQ_PSN), m(MIN_RNR_TIMER));
    // RTS -> RTS and SQD -> RTS share the optional sets.
    for (QpState from : new QpState[] {RTS, SQD}) {
      rule(from, RTS, UD, 0, m(CUR_STATE, QKEY));
      rule(from, RTS, UC, 0, m(CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE));
      rule(from, RTS, RC, 0, m(CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE, MIN_RNR_TIMER));
      rule(from, RTS, XRC_SEND, 0, m(CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE));
      rule(from, RTS, XRC_RECV, 0, m(CUR_STATE, ACCESS_FLAGS, ALT_PATH, PATH_MIG_STATE, MIN_RNR_TIMER));
      rule(from, RTS, DCI, 0, m(CUR_STATE, MIN_RNR_TIMER));
    }
    rule(RTS, RTS, RAW_PACKET, 0, m(RATE_LIMIT));
    rule(SQD, RTS, RAW_PACKET, 0, m(RATE_LIMIT));
    // RTS -> SQD: every type that reaches RTS (§2.3 "all")
    for (QpType t : new QpType[] {UD, UC, RC, XRC_SEND, XRC_RECV, RAW_PACKET, DCI}) {
      rule(RTS, SQD, t, 0, m(EN_SQD_ASYNC_NOTIFY));
    }
    // SQD -> SQD
    rule(SQD, SQD, UD, 0, m(PKEY_INDEX, QKEY));
    rule(SQD, SQD, UC, 0, m(AV, ALT_PATH, ACCESS_FLAGS, PKEY_INDEX, PATH_MIG_STATE));
    rule(SQD, SQD, RC, 0, m(PORT, AV, TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC, MAX_DEST_RD_ATOMIC, ALT_PATH,
        ACCESS_FLAGS, PKEY_INDEX, MIN_RNR_TIMER, PATH_MIG_STATE));
    rule(SQD, SQD, XRC_SEND, 0, m(PORT, AV, TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC, ALT_PATH, ACCESS_FLAGS,
        PKEY_INDEX, PATH_MIG_STATE));
    rule(SQD, SQD, XRC_RECV, 0, m(PORT, AV, TIMEOUT, MAX_DEST_RD_ATOMIC, ALT_PATH, ACCESS_FLAGS, PKEY_INDEX,
        MIN_RNR_TIMER, PATH_MIG_STATE));
    rule(SQD, SQD, DCI, 0, m(PKEY_INDEX, TIMEOUT, RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC, MIN_RNR_TIMER));
    rule(SQD, SQD, RAW_PACKET, 0, 0);
    // SQE -> RTS (UD/UC only: RC never enters SQE)
    rule(SQE, RTS, UD, 0, m(CUR_STATE, QKEY));
    rule(SQE, RTS, UC, 0, m(CUR_STATE, ACCESS_FLAGS));
  }

  private QpStateTable() {}

  private static int m(QpAttrMask... bits) {
    int mask = 0;
    for (QpAttrMask b : bits) {
      mask |= b.value();
    }
    return mask;
  }

  private static void rule(QpState from, QpState to, QpType type, int required, int optional) {
    Map<QpType, Rule> cell = TABLE[from.value()][to.value()];
    if (cell == null) {
      cell = new EnumMap<>(QpType.class);
      TABLE[from.value()][to.value()] = cell;
    }
    cell.put(type, new Rule(required, optional));
  }

  private static void allTypes(QpState from, QpState to, int required, int optional) {
    for (QpType t : QpType.values()) {
      rule(from, to, t, required, optional);
    }
  }

  /**
   * The rule for a transition, or null if it is illegal for that QP type.
   *
   * @param type the QP type
   * @param from current state
   * @param to next state
   * @return the rule, or null
   */
  public static Rule rule(QpType type, QpState from, QpState to) {
    if (from.value() >= STATES || to.value() >= STATES) {
      return null;
    }
    Map<QpType, Rule> cell = TABLE[from.value()][to.value()];
    return cell == null ? null : cell.get(type);
  }

  /**
   * Checks a modify against the table, as {@code ib_modify_qp_is_ok} does, and returns the next
   * state. Checks run in the kernel's order: CUR_STATE allowed, transition legal, required present,
   * nothing extra.
   *
   * @param type the QP type
   * @param current the QP's actual state
   * @param attr the attributes (their set fields are the mask)
   * @param qpDesc how to name the QP in messages, e.g. {@code RC QP 0x12}
   * @return the next state
   * @throws VerbsException EINVAL naming the problem
   */
  public static QpState check(QpType type, QpState current, QpAttr attr, String qpDesc) {
    int mask = attr.mask();
    QpState cur = current;
    if (attr.has(CUR_STATE)) {
      QpState asserted = attr.curQpState();
      if (asserted != RTR && asserted != RTS && asserted != SQD && asserted != SQE) {
        throw VerbsException.invalid("cur_qp_state=" + asserted + " is not allowed (only RTR, RTS, SQD or SQE) on "
            + qpDesc);
      }
      if (asserted != current) {
        throw VerbsException.invalid("cur_qp_state=" + asserted + " does not match the state " + current + " of "
            + qpDesc);
      }
      cur = asserted;
    }
    QpState next = attr.has(STATE) ? attr.qpState() : cur;
    Rule rule = rule(type, cur, next);
    if (rule == null) {
      throw VerbsException.invalid("illegal transition " + cur + " -> " + next + " for " + qpDesc);
    }
    int given = mask & ~STATE.value();
    int missing = rule.required() & ~given;
    if (missing != 0) {
      throw VerbsException.invalid("missing required attribute " + QpAttrMask.describe(missing) + " for " + cur
          + " -> " + next + " on " + qpDesc);
    }
    int extra = given & ~(rule.required() | rule.optional());
    if (extra != 0) {
      throw VerbsException.invalid("attribute " + QpAttrMask.describe(extra) + " is not allowed for " + cur + " -> "
          + next + " on " + qpDesc);
    }
    return next;
  }
}
