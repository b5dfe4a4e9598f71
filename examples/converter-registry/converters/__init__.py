"""A small converter registry shaped like Torch-TensorRT's dynamo converters."""
