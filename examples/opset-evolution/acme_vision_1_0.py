"""The ``com.acme.vision`` operator set as released in acme-vision 1.0 (opset 1).

Importing this module registers the schemas with onnx.defs (process-global), exactly as the
adopter's package does at import time.
"""

from __future__ import annotations

from onnx import defs, helper
from onnx.defs import OpSchema

DOMAIN = "com.acme.vision"
FLOATS = ["tensor(float)", "tensor(float16)"]


def blend_1() -> OpSchema:
    """Y = alpha * A + (1 - alpha) * B."""
    return OpSchema(
        "Blend",
        DOMAIN,
        1,
        "Weighted sum of two images.",
        inputs=[OpSchema.FormalParameter("A", "T"), OpSchema.FormalParameter("B", "T")],
        outputs=[OpSchema.FormalParameter("Y", "T")],
        type_constraints=[("T", FLOATS, "Image element type.")],
        attributes=[
            OpSchema.Attribute("alpha", helper.make_attribute("alpha", 0.5), "Weight of A.")
        ],
    )


def posterize_1() -> OpSchema:
    """Quantize each channel to ``levels`` values."""
    return OpSchema(
        "Posterize",
        DOMAIN,
        1,
        "Reduce the number of levels per channel.",
        inputs=[OpSchema.FormalParameter("X", "T")],
        outputs=[OpSchema.FormalParameter("Y", "T")],
        type_constraints=[("T", FLOATS, "Image element type.")],
        attributes=[OpSchema.Attribute("levels", OpSchema.AttrType.INT, "Levels per channel.")],
    )


for schema in (blend_1(), posterize_1()):
    defs.register_schema(schema)
