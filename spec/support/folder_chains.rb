# frozen_string_literal: true

# What a run leaves that costs the most to look at: Python making +chains+ chains of
# folders, each 120 levels of 250-byte names (paths of about 30 KB, far past the
# longest a store holds), opened level by level so no path is ever spelled out.
module FolderChains
  module_function

  def code(chains)
    <<~PY
      import os
      for chain in range(#{chains}):
          fd = os.open('.', os.O_RDONLY)
          for level in range(120):
              name = 'c%05d%03d' % (chain, level) + 'x' * 242
              os.mkdir(name, dir_fd=fd)
              below = os.open(name, os.O_RDONLY, dir_fd=fd)
              os.close(fd)
              fd = below
          os.close(fd)
      print('made')
    PY
  end
end
