# Assembly whose object carries a layout description pcmap cannot read (a
# version it does not know): emit refuses the object, as it would an
# unfinished object of a newer plugin.
	.text
	.globl	bad_layout
bad_layout:
	ret
	.section	.pcmap.layout,"e",@progbits
	.ascii	"pcmap-layout 99\nend\n"
