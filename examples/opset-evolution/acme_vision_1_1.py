"""The ``com.acme.vision`` operator set as released in acme-vision 1.1 (opset 2).

``Blend`` gained an optional ``Mask`` input, so the new signature is a new operator,
``Blend:2``; ``Blend:1`` stays registered exactly as published, and the opset version rises
to 2 (registering a schema with since_version 2 extends the domain's range).
"""

from __future__ import annotations

from onnx import defs, helper
from onnx.defs import OpSchema

DOMAIN = "com.acme.vision"
FLOATS = ["tensor(float)", "tensor(float16)"]


def blend_1() -> OpSchema:
    """Y = alpha * A + (1 - alpha) * B (as published in opset 1)."""
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


def blend_2() -> OpSchema:
    """Y = alpha * A + (1 - alpha) * B, where Mask (when given) is nonzero."""
    return OpSchema(
        "Blend",
        DOMAIN,
        2,
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


for schema in (blend_1(), blend_2(), posterize_1()):
    defs.register_schema(schema)
