"""The NumPy backend, the reference: a StatementIR as generated NumPy source.

``backend`` generates and compiles the source; ``buffer_plan`` says which
large intermediates can live in buffers kept between calls and ``buffers``
keeps them; ``writes`` handles writes into arrays.
"""
