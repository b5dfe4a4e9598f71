"""acme-vision 1.1 as first proposed: the mistake the opset_rules gate exists to catch.

``Blend`` gained an optional ``Mask`` input, but kept ``since_version`` 1. Models exported
for opset 1 and runtimes implementing opset 1 now disagree about what ``Blend:1`` is.
"""

from __future__ import annotations

from onnx import defs, helper
from onnx.defs import OpSchema

DOMAIN = "com.acme.vision"
FLOATS = ["tensor(float)", "tensor(float16)"]


def blend_1_changed() -> OpSchema:
    """Y = alpha * A + (1 - alpha) * B, where Mask (when given) is nonzero."""
    return OpSchema(
        "Blend",
        DOMAIN,
        1,
        "Weighted sum of two images, optionally masked.",
        inputs=[
            OpSchema.FormalParameter("A", "T"),
            OpSchema.FormalParameter("B", "T"),
            OpSchema.FormalParameter(
                "Mask", "T", param_option=OpSchema.FormalParameterOption.Optional
            ),
        ],
        outputs=[OpSchema.FormalParameter("Y", "T")],
        type_constraints=[("T", FLOATS, "Image element type.")],
        attributes=[
            OpSchema.Attribute("alpha", helper.make_attribute("alpha", 0.5), "Weight of A.")
        ],
    )


def posterize_1() -> OpSchema:
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


for schema in (blend_1_changed(), posterize_1()):
    defs.register_schema(schema)
