"""The way in through files: checkpoints and state dicts, read back to the constructors that made them.

Shapes only, nothing executed, nothing unpickled beyond ``torch.load(weights_only=True)``:
:mod:`.checkpoints` (``.pt``/``.pth``/``.bin``/``.safetensors``/``.keras``/``.onnx``),
:mod:`.safetensors_format`, :mod:`.onnx_format`, :mod:`.state_dict` (names -> tensors or
shapes), :mod:`.infer` (torch's recurrent modules from their tensors) and, for block models
(Mamba, Mamba-2, RWKV, RecurrentGemma), :mod:`.block_shapes` and :mod:`.block_infer`.
"""
