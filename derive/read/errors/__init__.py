"""The way in through error messages: what a framework said about a recurrent layer, explained.

:mod:`.messages` reads a size-mismatch or ``load_state_dict`` message and names the constructor
argument that differs; :mod:`.blocks` does so for block models' tensors, and
:mod:`.architecture` names the architecture a checkpoint's keys belong to when it is not the
model's (Mamba-2 keys loaded into a Mamba).
"""
