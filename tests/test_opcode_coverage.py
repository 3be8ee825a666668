"""Every opcode of the running CPython is either simulated or listed as not."""
import dis

from sot.executor.handlers import HANDLERS, UNSUPPORTED


def test_every_opcode_is_handled_or_listed_with_a_reason():
    missing = sorted(op for op in dis.opmap if op not in HANDLERS and op not in UNSUPPORTED
                     and not op.startswith("INSTRUMENTED_"))
    assert missing == []


def test_instrumented_opcodes_never_reach_the_simulator():
    # dis.get_instructions shows the base opcode; instrumented forms only
    # exist while sys.monitoring is active, when the hook stands aside.
    assert all(op not in HANDLERS for op in dis.opmap if op.startswith("INSTRUMENTED_"))
